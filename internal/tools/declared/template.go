package declared

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Names of the functions this package adds to every template for its own
// use; the user's templates never name them.
const (
	envFunc   = "_env"
	plainFunc = "_text"
	pathFunc  = "_pathseg"
	queryFunc = "_queryval"
	shellFunc = "_shellarg"
)

// escaping says how the values a template inserts are made safe for the
// place the rendered text goes.
type escaping int

const (
	// escNone inserts values as they are (headers, bodies, stdin, argv
	// without a shell).
	escNone escaping = iota
	// escURL path-escapes values inserted into a URL, or query-escapes
	// them after a "?".
	escURL
	// escShell shell-quotes every inserted value.
	escShell
)

// wholeField matches a template that is exactly one argument,
// "{{.name}}", which body mappings and sql args insert with its JSON type.
var wholeField = lazy.Regexp{Expr: `^\{\{-?\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*-?\}\}$`}

// tmpl is one compiled template of a tool.
type tmpl struct {
	src    string
	t      *template.Template // nil when src holds no action
	refs   []envRef
	fields []string // arguments the template refers to, sorted
	whole  string   // the argument name when src is exactly {{.name}}
}

// compileTemplate parses src, with ${NAME} references turned into calls
// of _env and an escaper appended to every action that prints a value.
func compileTemplate(name, src string, esc escaping) (*tmpl, error) {
	out := &tmpl{src: src}
	if m := wholeField.Get().FindStringSubmatch(strings.TrimSpace(src)); m != nil {
		out.whole = m[1]
	}
	text, refs := rewriteEnv(src)
	out.refs = refs
	if !strings.Contains(text, "{{") {
		return out, nil
	}
	t, err := template.New(name).Option("missingkey=zero").Funcs(baseFuncs(nil)).Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template %q does not parse: %s", src, strings.TrimPrefix(err.Error(), "template: "))
	}
	fields := map[string]bool{}
	walkFields(t.Tree.Root, true, func(f string) { fields[f] = true })
	for f := range fields {
		out.fields = append(out.fields, f)
	}
	slices.Sort(out.fields)
	inQuery := false
	addEscapers(t.Tree.Root, esc, &inQuery)
	out.t = t
	return out, nil
}

// walkFields reports the top-level argument of every field a template
// refers to: .a and .a.b name a, $.a names a. Inside range and with the
// dot is something else, so only $. references count there.
func walkFields(n parse.Node, root bool, add func(string)) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			walkFields(c, root, add)
		}
	case *parse.ActionNode:
		walkFields(n.Pipe, root, add)
	case *parse.PipeNode:
		if n == nil {
			return
		}
		for _, c := range n.Cmds {
			walkFields(c, root, add)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			walkFields(a, root, add)
		}
	case *parse.FieldNode:
		if root && len(n.Ident) > 0 {
			add(n.Ident[0])
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			add(n.Ident[1])
		}
	case *parse.ChainNode:
		walkFields(n.Node, root, add)
	case *parse.IfNode:
		walkFields(n.Pipe, root, add)
		walkFields(n.List, root, add)
		walkFields(n.ElseList, root, add)
	case *parse.RangeNode:
		walkFields(n.Pipe, root, add)
		walkFields(n.List, false, add)
		walkFields(n.ElseList, root, add)
	case *parse.WithNode:
		walkFields(n.Pipe, root, add)
		walkFields(n.List, false, add)
		walkFields(n.ElseList, root, add)
	case *parse.TemplateNode:
		walkFields(n.Pipe, root, add)
	}
}

// addEscapers appends the escaper of esc to every action that prints a
// value, the way html/template does: {{.path}} becomes
// {{.path | _pathseg}}. Environment references get the plain printer, so
// ${API} inserts "https://host/v1" unescaped. In a URL, actions after the
// first "?" of the literal text are query values.
func addEscapers(n parse.Node, esc escaping, inQuery *bool) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			addEscapers(c, esc, inQuery)
		}
	case *parse.TextNode:
		if strings.Contains(string(n.Text), "?") {
			*inQuery = true
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return
		}
		fn := plainFunc
		switch {
		case isEnvAction(n.Pipe):
		case esc == escURL && *inQuery:
			fn = queryFunc
		case esc == escURL:
			fn = pathFunc
		case esc == escShell:
			fn = shellFunc
		}
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{
			NodeType: parse.NodeCommand,
			Pos:      n.Pos,
			Args:     []parse.Node{parse.NewIdentifier(fn).SetPos(n.Pos)},
		})
	case *parse.IfNode:
		addEscapers(n.List, esc, inQuery)
		addEscapers(n.ElseList, esc, inQuery)
	case *parse.RangeNode:
		addEscapers(n.List, esc, inQuery)
		addEscapers(n.ElseList, esc, inQuery)
	case *parse.WithNode:
		addEscapers(n.List, esc, inQuery)
		addEscapers(n.ElseList, esc, inQuery)
	}
}

// isEnvAction reports whether a pipeline is a rewritten ${NAME}.
func isEnvAction(p *parse.PipeNode) bool {
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) == 0 {
		return false
	}
	id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == envFunc
}

// literal reports whether the template inserts nothing, neither argument
// nor environment variable.
func (t *tmpl) literal() bool { return t.t == nil }

// render executes the template over the call's arguments. Absent
// optional arguments render empty.
func (t *tmpl) render(args map[string]any, ce *callEnv) (string, error) {
	if t.t == nil {
		return t.src, nil
	}
	c, err := t.t.Clone()
	if err != nil {
		return "", err
	}
	c.Funcs(baseFuncs(ce))
	var b strings.Builder
	if err := c.Execute(&b, args); err != nil {
		return "", fmt.Errorf("template %q: %s", t.src, strings.TrimPrefix(err.Error(), "template: "))
	}
	return b.String(), nil
}

// baseFuncs are the functions templates may call: the documented helpers
// (urlquery, pathescape, json, shellquote, default, join) and the
// escapers and environment lookup this package inserts itself. Every one
// treats an absent argument (nil) as empty rather than "<no value>".
func baseFuncs(ce *callEnv) template.FuncMap {
	return template.FuncMap{
		envFunc: func(name, def string, hasDefault bool) (string, error) {
			if ce == nil {
				return "", nil
			}
			return ce.lookupRef(name, def, hasDefault)
		},
		plainFunc:    toText,
		pathFunc:     func(v any) string { return url.PathEscape(toText(v)) },
		queryFunc:    func(v any) string { return url.QueryEscape(toText(v)) },
		shellFunc:    func(v any) string { return shellQuote(toText(v)) },
		"urlquery":   func(vs ...any) string { return url.QueryEscape(joinText(vs)) },
		"pathescape": func(v any) string { return url.PathEscape(toText(v)) },
		"shellquote": func(v any) string { return shellQuote(toText(v)) },
		"json":       jsonText,
		"default":    defaultValue,
		"join":       join,
	}
}

// toText renders a value as templates print it: strings and numbers as
// they are, nil as empty, lists and objects as JSON.
func toText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return string(x)
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

func joinText(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = toText(v)
	}
	return strings.Join(parts, "")
}

// jsonText is the json helper: the JSON encoding of a value, null for an
// absent argument.
func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("json: %w", err)
	}
	return string(b), nil
}

// defaultValue is the default helper: {{default "10" .limit}} is .limit,
// or "10" when the argument is absent or empty.
func defaultValue(def, v any) any {
	if v == nil {
		return def
	}
	if s, ok := v.(string); ok && s == "" {
		return def
	}
	return v
}

// join is the join helper. It takes the separator and the list in either
// order, so both {{join .tags ","}} and {{.tags | join ","}} work.
func join(a, b any) (string, error) {
	list, sep := a, b
	if _, ok := a.(string); ok {
		list, sep = b, a
	}
	s, ok := sep.(string)
	if !ok {
		return "", fmt.Errorf("join: want a separator string and a list, got %T and %T", a, b)
	}
	switch l := list.(type) {
	case nil:
		return "", nil
	case []any:
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = toText(e)
		}
		return strings.Join(parts, s), nil
	case []string:
		return strings.Join(l, s), nil
	}
	return toText(list), nil
}

// shellQuote quotes s for a POSIX shell: single quotes, with each single
// quote written as '\”. Words made only of safe characters stay as they
// are, so traces stay readable.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
