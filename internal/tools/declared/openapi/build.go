package openapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/tools/declared"
)

// skipError says why an operation cannot become a tool. Import turns it
// into a warning, or into an error when the operation was asked for by
// name.
type skipError struct {
	reason string
}

func (e *skipError) Error() string { return e.reason }

// builder builds the arguments schema and the http block of one
// operation. Arguments are the union of the operation's parameters and,
// for a JSON object body, the body's properties; each gets a name a
// template can address as {{.name}}.
type builder struct {
	op   *operation
	res  *resolver
	conv converter
	// authHeaders are headers (lower case) the security scheme sets from
	// the environment; parameters of the same name are left to it.
	authHeaders map[string]bool

	args     *names
	props    map[string]any
	required []any
	path     string
	http     *declared.HTTP
	warnings []string
}

func newBuilder(d *Document, op *operation, authHeaders map[string]bool) *builder {
	return &builder{
		op:          op,
		res:         newResolver(d.root),
		conv:        converter{oas30: !d.is31()},
		authHeaders: authHeaders,
		args:        newNames(0),
		props:       map[string]any{},
		path:        op.path,
		http:        &declared.HTTP{Method: strings.ToUpper(op.method)},
	}
}

func (b *builder) warnf(format string, a ...any) {
	b.warnings = append(b.warnings, b.op.label()+": "+fmt.Sprintf(format, a...))
}

// build fills the schema and the http block; the URL gets only the path
// part, the caller puts the base URL in front.
func (b *builder) build() error {
	params, err := b.parameters()
	if err != nil {
		return err
	}
	for _, p := range params {
		if err := b.parameter(p); err != nil {
			return err
		}
	}
	b.undeclaredPathParams()
	if rb, ok := b.op.op["requestBody"]; ok {
		if err := b.body(rb); err != nil {
			return err
		}
	}
	b.http.Expect = expectCodes(b.op.op["responses"])
	return nil
}

// schema is the finished arguments schema.
func (b *builder) schema() map[string]any {
	s := map[string]any{"type": "object", "properties": b.props}
	if len(b.required) > 0 {
		s["required"] = b.required
	}
	return s
}

// parameters merges path-level and operation-level parameters, resolved;
// an operation parameter replaces a path parameter with the same name and
// location, as OpenAPI specifies.
func (b *builder) parameters() ([]map[string]any, error) {
	var out []map[string]any
	index := map[string]int{}
	for _, src := range []any{b.op.item["parameters"], b.op.op["parameters"]} {
		list, _ := src.([]any)
		for _, raw := range list {
			v, err := b.res.resolve(raw)
			if err != nil {
				return nil, err
			}
			p, ok := v.(map[string]any)
			if !ok {
				return nil, &skipError{fmt.Sprintf("a parameter is %s, want a mapping", kind(v))}
			}
			name, _ := p["name"].(string)
			in, _ := p["in"].(string)
			if name == "" || in == "" {
				return nil, &skipError{"a parameter has no name or no in"}
			}
			key := in + "\x00" + name
			if i, ok := index[key]; ok {
				out[i] = p
				continue
			}
			index[key] = len(out)
			out = append(out, p)
		}
	}
	return out, nil
}

// ignoredHeaders are header parameters OpenAPI says to ignore: the HTTP
// machinery and the security scheme set them.
var ignoredHeaders = []string{"authorization", "accept", "content-type", "cookie"}

// parameter adds one parameter as an argument and places it in the path,
// query or headers.
func (b *builder) parameter(p map[string]any) error {
	name, in := p["name"].(string), p["in"].(string)
	switch in {
	case "header":
		if slices.Contains(ignoredHeaders, strings.ToLower(name)) || b.authHeaders[strings.ToLower(name)] {
			return nil
		}
	case "cookie":
		b.warnf("cookie parameter %q left out: declared tools do not send cookies from arguments", name)
		return nil
	case "path", "query":
	default:
		return &skipError{fmt.Sprintf("parameter %q has in: %q; want path, query, header or cookie", name, in)}
	}
	s := b.paramSchema(p)
	list := false
	if in == "query" {
		switch schemaType(s) {
		case "object":
			if p["required"] == true {
				return &skipError{fmt.Sprintf("required query parameter %q is an object; declared tools send query values as plain strings", name)}
			}
			b.warnf("query parameter %q left out: it is an object, and declared tools send query values as plain strings", name)
			return nil
		case "array":
			list = true
			// OpenAPI's default for query lists is form style exploded:
			// name=a&name=b. A declared query value is one string.
			if p["explode"] != false || (p["style"] != nil && p["style"] != "form") {
				b.warnf("query parameter %q is a list; it is sent comma-separated (%s=a,b), not repeated as the document describes: check the API accepts that", name, name)
			}
		}
	}
	arg := argName(name)
	if b.args.has(arg) {
		arg = in + "_" + arg
	}
	arg = b.args.unique(arg)
	b.props[arg] = s
	if in == "path" || p["required"] == true {
		b.required = append(b.required, arg)
	}
	tmpl := "{{." + arg + "}}"
	if list {
		tmpl = "{{join ." + arg + ` ","}}`
	}
	switch in {
	case "path":
		b.path = strings.ReplaceAll(b.path, "{"+name+"}", tmpl)
	case "query":
		if b.http.Query == nil {
			b.http.Query = map[string]string{}
		}
		b.http.Query[name] = tmpl
	case "header":
		if b.http.Headers == nil {
			b.http.Headers = map[string]string{}
		}
		b.http.Headers[name] = tmpl
	}
	return nil
}

// paramSchema is a parameter's schema with the parameter's own
// description, deprecation and examples folded in, so the model sees
// them.
func (b *builder) paramSchema(p map[string]any) map[string]any {
	raw := p["schema"]
	if raw == nil {
		if content, ok := p["content"].(map[string]any); ok {
			for _, mt := range sortedKeys(content) {
				if m, ok := content[mt].(map[string]any); ok && m["schema"] != nil {
					raw = m["schema"]
					break
				}
			}
		}
	}
	s, _ := b.conv.convert(raw).(map[string]any)
	if s == nil {
		s = map[string]any{"type": "string"}
	}
	if d, ok := p["description"].(string); ok && strings.TrimSpace(d) != "" {
		s["description"] = strings.TrimSpace(d)
	}
	if p["deprecated"] == true {
		s["deprecated"] = true
	}
	if ex, ok := p["example"]; ok {
		s["examples"] = []any{normalizeNumbers(ex)}
	} else if exs, ok := p["examples"].(map[string]any); ok {
		var list []any
		for _, k := range sortedKeys(exs) {
			if e, ok := exs[k].(map[string]any); ok {
				if v, ok := e["value"]; ok {
					list = append(list, normalizeNumbers(v))
				}
			}
		}
		if len(list) > 0 {
			s["examples"] = list
		}
	}
	return s
}

// undeclaredPathParams adds string arguments for {name} parts of the path
// that no parameter describes; the document is wrong, but the request
// cannot be built without them.
func (b *builder) undeclaredPathParams() {
	for {
		i := strings.Index(b.path, "{")
		if i < 0 || strings.HasPrefix(b.path[i:], "{{") {
			// Only template parts remain; find a single brace after them.
			j := nextSingleBrace(b.path)
			if j < 0 {
				return
			}
			i = j
		}
		end := strings.Index(b.path[i:], "}")
		if end < 0 {
			return
		}
		name := b.path[i+1 : i+end]
		arg := b.args.unique(argName(name))
		b.props[arg] = map[string]any{"type": "string"}
		b.required = append(b.required, arg)
		b.path = strings.ReplaceAll(b.path, "{"+name+"}", "{{."+arg+"}}")
		b.warnf("path parameter %q is not described in parameters; added as a required string", name)
	}
}

// nextSingleBrace finds a "{" that does not start or sit inside a {{ }}
// template.
func nextSingleBrace(s string) int {
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "{{") {
			end := strings.Index(s[i:], "}}")
			if end < 0 {
				return -1
			}
			i += end + 1
			continue
		}
		if s[i] == '{' {
			return i
		}
	}
	return -1
}
