package declared

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared/sqlexec"
)

// namePattern is tool.Registry's rule for names, checked here too so the
// error points at the file and line.
var namePattern = lazy.Regexp{Expr: `^[a-zA-Z0-9_-]{1,64}$`}

// envNamePattern is what command.env accepts as a variable name.
var envNamePattern = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// httpMethods are the methods an http tool may use.
var httpMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}

// fieldErr is a problem with one field of a tool.
type fieldErr struct {
	field string
	err   error
}

// builder turns declared specs into tools.
type builder struct {
	env      func(string) (string, bool)
	clients  *clients
	fallback tool.Approver
}

// parseSpec decodes and checks one entry of tools:.
func (b builder) parseSpec(display, dir string, item *yaml.Node) parsedSpec {
	ps := parsedSpec{line: item.Line}
	if n := mapValue(item, "name"); n != nil && n.Kind == yaml.ScalarNode {
		ps.name = n.Value
	}
	fail := func(line int, err error) parsedSpec {
		ps.problems = append(ps.problems, Problem{File: display, Line: line, Tool: ps.name, Err: err})
		return ps
	}
	if item.Kind != yaml.MappingNode {
		return fail(item.Line, errors.New("each entry of tools: must be a mapping with name, description, parameters and one of http, command or sql"))
	}
	for _, c := range []struct {
		node *yaml.Node
		typ  reflect.Type
		name string
	}{
		{item, reflect.TypeFor[Spec](), ""},
		{mapValue(item, "retry"), reflect.TypeFor[Retry](), "retry"},
		{mapValue(item, "http"), reflect.TypeFor[HTTP](), "http"},
		{mapValue(item, "command"), reflect.TypeFor[Command](), "command"},
		{mapValue(item, "sql"), reflect.TypeFor[sqlexec.Query](), "sql"},
	} {
		if c.node == nil {
			continue
		}
		if err := checkKeys(c.node, c.typ, c.name); err != nil {
			return fail(c.node.Line, err)
		}
	}
	for _, path := range durationNodes(item) {
		if n := path.node; n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
			return fail(n.Line, fmt.Errorf("%s: %s has no unit; write a duration such as %ss or %sms", path.field, n.Value, n.Value, n.Value))
		}
	}
	var s Spec
	if err := item.Decode(&s); err != nil {
		return fail(item.Line, errors.New(yamlErr(err)))
	}
	t, errs := b.compile(display, dir, s)
	for _, fe := range errs {
		ps.problems = append(ps.problems, Problem{File: display, Line: fieldLine(item, fe.field), Tool: ps.name,
			Err: fmt.Errorf("%s: %w", fe.field, fe.err)})
	}
	if len(errs) == 0 {
		raw, _ := yaml.Marshal(item)
		t.fingerprint = display + "\x00" + dir + "\x00" + string(raw)
		t.line = item.Line
		ps.tool = t
	}
	return ps
}

// fieldNode is a node with the field path that names it in errors.
type fieldNode struct {
	field string
	node  *yaml.Node
}

// durationNodes lists the nodes that hold durations.
func durationNodes(item *yaml.Node) []fieldNode {
	var out []fieldNode
	if n := mapValue(item, "timeout"); n != nil {
		out = append(out, fieldNode{"timeout", n})
	}
	if n := mapValue(mapValue(item, "retry"), "backoff"); n != nil && n.Kind == yaml.SequenceNode {
		for i, e := range n.Content {
			out = append(out, fieldNode{fmt.Sprintf("retry.backoff[%d]", i), e})
		}
	}
	return out
}

// compile checks a decoded spec and builds its tool. All problems found
// are returned, each naming its field.
func (b builder) compile(display, dir string, s Spec) (*Tool, []fieldErr) {
	var errs []fieldErr
	add := func(field string, format string, args ...any) {
		errs = append(errs, fieldErr{field, fmt.Errorf(format, args...)})
	}
	if !namePattern.Get().MatchString(s.Name) {
		add("name", "%q is not a valid tool name; use 1 to 64 letters, digits, _ or -", s.Name)
	}
	if strings.TrimSpace(s.Description) == "" {
		add("description", "is empty; say what the tool does and when not to use it")
	}
	params, props, err := schemaOf(s.Name, s.Parameters)
	if err != nil {
		errs = append(errs, fieldErr{"parameters", err})
	}
	kinds := 0
	for _, set := range []bool{s.HTTP != nil, s.Command != nil, s.SQL != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		add("http", "a tool needs exactly one of http:, command: or sql:, it has %d", kinds)
	}
	switch s.Approval {
	case "", "never", "always":
	default:
		add("approval", "%q is not accepted; use never or always", s.Approval)
	}
	if s.Timeout < 0 {
		add("timeout", "%v is negative; use zero (the default) or more", s.Timeout)
	}
	if s.Retry.Attempts < 0 {
		add("retry.attempts", "%d is negative; use zero (no retry) or more", s.Retry.Attempts)
	}
	for i, w := range s.Retry.Backoff {
		if w < 0 {
			add(fmt.Sprintf("retry.backoff[%d]", i), "%v is negative; waits cannot be negative", w)
		}
	}
	if s.MaxOutput < 0 {
		add("max_output", "%d is negative; use zero (the default) or more", s.MaxOutput)
	}
	t := &Tool{decl: s, file: display, dir: dir, env: b.env, clients: b.clients, fallback: b.fallback, approval: s.Approval == "always"}
	c := compiler{props: props, refs: &t.refs, errs: &errs}
	if kinds == 1 {
		switch {
		case s.HTTP != nil:
			t.kind, t.http = "http", c.http(s.HTTP)
		case s.Command != nil:
			t.kind, t.cmd = "command", c.command(dir, s.Command)
		case s.SQL != nil:
			t.kind, t.sql = "sql", c.sql(s.SQL)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	t.spec = tool.Spec{
		Name:        s.Name,
		Description: s.Description,
		Parameters:  params,
		Toolset:     cmpOr(s.Toolset, "declared"),
		Timeout:     s.Timeout,
		Retry:       tool.Retry{Attempts: s.Retry.Attempts, Backoff: slices.Clone(s.Retry.Backoff)},
		Idempotent:  s.Idempotent,
		MaxOutput:   s.MaxOutput,
	}
	switch {
	case t.http != nil:
		safe := t.http.method == "GET" || t.http.method == "HEAD"
		t.spec.ParallelSafe = safe
		t.spec.Idempotent = s.Idempotent || safe || t.http.method == "PUT" || t.http.method == "DELETE" || t.http.method == "OPTIONS"
	case t.sql != nil:
		t.spec.ParallelSafe = s.SQL.ReadOnly
		t.spec.Idempotent = s.Idempotent || s.SQL.ReadOnly
	}
	return t, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// schemaOf converts the parameters mapping to compact JSON, compiles it
// as tool.Registry will, and returns the declared property names.
func schemaOf(name string, params map[string]any) (json.RawMessage, map[string]any, error) {
	if params == nil {
		return nil, map[string]any{}, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot be converted to JSON (keys must be strings): %v", err)
	}
	if _, err := tool.CompileSchema(name, raw); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, fmt.Sprintf("tool %q: ", name))
		msg = strings.TrimPrefix(msg, "parameters schema: ")
		return nil, nil, errors.New(msg)
	}
	props, _ := params["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	return raw, props, nil
}

// compiler compiles the templates of one tool, checking that each refers
// only to declared parameters, and collects the environment variables
// they name.
type compiler struct {
	props map[string]any
	refs  *[]envRef
	errs  *[]fieldErr
}

func (c compiler) fail(field, format string, args ...any) {
	*c.errs = append(*c.errs, fieldErr{field, fmt.Errorf(format, args...)})
}

// template compiles the template of field.
func (c compiler) template(field, src string, esc escaping) *tmpl {
	t, err := compileTemplate(field, src, esc)
	if err != nil {
		c.fail(field, "%v", err)
		return nil
	}
	for _, f := range t.fields {
		if _, ok := c.props[f]; !ok {
			c.fail(field, "template refers to .%s, which is not a parameter (parameters: %s)", f, c.propList())
		}
	}
	*c.refs = append(*c.refs, t.refs...)
	return t
}

// markCredentials marks the ${NAME} references t added, all of them or
// those which says (by their order in t), as carrying credentials.
func (c compiler) markCredentials(t *tmpl, which func(i int) bool) {
	if t == nil {
		return
	}
	all := *c.refs
	start := len(all) - len(t.refs)
	for i := range t.refs {
		if which == nil || which(i) {
			all[start+i].Credential = true
		}
	}
}

// propList names the declared parameters, sorted, for error messages.
func (c compiler) propList() string {
	if len(c.props) == 0 {
		return "none"
	}
	names := make([]string, 0, len(c.props))
	for k := range c.props {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// command compiles a command: block.
func (c compiler) command(dir string, cmd *Command) *cmdPlan {
	p := &cmdPlan{shell: cmd.Shell, output: cmpOr(cmd.Output, "text")}
	if len(cmd.Argv) == 0 {
		c.fail("command.argv", "is empty; give the program and its arguments, e.g. [\"du\", \"-sh\", \"{{.path}}\"]")
	}
	esc := escNone
	if cmd.Shell {
		esc = escShell
	}
	for i, a := range cmd.Argv {
		p.argv = append(p.argv, c.template(fmt.Sprintf("command.argv[%d]", i), a, esc))
	}
	if cmd.Dir != "" {
		p.dir = cmd.Dir
		if !filepath.IsAbs(p.dir) {
			p.dir = filepath.Join(dir, p.dir)
		}
	}
	p.fileDir = dir
	for _, k := range sortedKeys(cmd.Env) {
		if !envNamePattern.Get().MatchString(k) {
			c.fail("command.env."+k, "%q is not a valid variable name; use letters, digits and _", k)
		}
		p.env = append(p.env, namedTmpl{k, c.template("command.env."+k, cmd.Env[k], escNone)})
	}
	if cmd.Stdin != "" {
		p.stdin = c.template("command.stdin", cmd.Stdin, escNone)
	}
	switch p.output {
	case "text", "json":
	default:
		c.fail("command.output", "%q is not accepted; use text or json", cmd.Output)
	}
	return p
}

// sql compiles an sql: block. The connection is checked by the loader,
// which knows every file's connections.
func (c compiler) sql(q *sqlexec.Query) *sqlPlan {
	p := &sqlPlan{q: *q}
	if q.Connection == "" {
		c.fail("sql.connection", "is empty; name an entry of connections:")
	}
	if q.ReadOnly {
		p.sqlArg = cmpOr(q.SQLArg, "sql")
		prop, _ := c.props[p.sqlArg].(map[string]any)
		if prop == nil || prop["type"] != "string" {
			c.fail("sql.sql_arg", "read_only tools take the model's statement in parameter %q, which must be a string property of parameters (parameters: %s)", p.sqlArg, c.propList())
		}
	} else if strings.TrimSpace(q.Query) == "" {
		c.fail("sql.query", "is empty; give the statement, or set read_only: true to let the model write SELECTs")
	}
	if q.MaxRows < 0 {
		c.fail("sql.max_rows", "%d is negative; use zero (the default, 200) or more", q.MaxRows)
	}
	for i, a := range q.Args {
		p.args = append(p.args, c.template(fmt.Sprintf("sql.args[%d]", i), a, escNone))
	}
	return p
}

// sortedKeys returns a map's keys in order, so requests and traces are
// the same from call to call.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// namedTmpl is a template with the name it fills (a header, a query
// parameter, an environment variable).
type namedTmpl struct {
	name string
	t    *tmpl
}
