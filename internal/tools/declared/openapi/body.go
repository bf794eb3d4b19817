package openapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// body adds the request body's arguments and the http body template. A
// JSON object body is flattened: its properties become arguments and the
// body is a mapping of property to "{{.arg}}", which the declared package
// fills with each argument's JSON value and leaves out when absent. Any
// other JSON body is one argument, body, sent as {{json .body}}.
func (b *builder) body(raw any) error {
	v, err := b.res.resolve(raw)
	if err != nil {
		return err
	}
	rb, ok := v.(map[string]any)
	if !ok {
		return &skipError{fmt.Sprintf("requestBody is %s, want a mapping", kind(v))}
	}
	content, _ := rb["content"].(map[string]any)
	if len(content) == 0 {
		return nil
	}
	mt := pickMediaType(content)
	media, _ := content[mt].(map[string]any)
	s, _ := b.conv.convert(media["schema"]).(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	required := rb["required"] == true
	desc, _ := rb["description"].(string)
	switch {
	case isJSON(mt):
		if mt != "application/json" && !strings.HasPrefix(mt, "application/json;") {
			b.warnf("request body is %s; it is sent as application/json", mt)
		}
		if flattenable(s) {
			b.flatBody(s)
			return nil
		}
		b.wholeBody(s, desc, required, "{{json .%s}}", "")
	case mt == "application/x-www-form-urlencoded":
		if !flattenable(s) || !scalarProperties(s) {
			return &skipError{"the form request body is not a flat object of plain values; only simple application/x-www-form-urlencoded bodies are supported"}
		}
		b.formBody(s)
	case strings.HasPrefix(mt, "text/plain"):
		if schemaType(s) == "" {
			s["type"] = "string"
		}
		b.wholeBody(s, desc, required, "{{.%s}}", mt)
	default:
		return &skipError{fmt.Sprintf("request body type %s is not supported; want application/json, text/plain or a simple application/x-www-form-urlencoded", mt)}
	}
	return nil
}

// pickMediaType prefers JSON, then a form, then text, then whatever is
// first alphabetically (which is then refused with its name).
func pickMediaType(content map[string]any) string {
	keys := sortedKeys(content)
	for _, pref := range []func(string) bool{
		func(mt string) bool { return mt == "application/json" },
		isJSON,
		func(mt string) bool { return mt == "application/x-www-form-urlencoded" },
		func(mt string) bool { return strings.HasPrefix(mt, "text/plain") },
		func(mt string) bool { return mt == "*/*" || mt == "application/*" },
	} {
		for _, k := range keys {
			if pref(strings.ToLower(k)) {
				return k
			}
		}
	}
	return keys[0]
}

func isJSON(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(strings.Split(mt, ";")[0]))
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*" || mt == "application/*"
}

// flattenable reports whether a body schema is an object with named
// properties and nothing (oneOf, anyOf) that flattening would lose.
func flattenable(s map[string]any) bool {
	t := schemaType(s)
	props, _ := s["properties"].(map[string]any)
	if (t != "object" && t != "") || len(props) == 0 {
		return false
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "not", "if"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	return true
}

// scalarProperties reports whether every property is a plain value a
// form field can carry.
func scalarProperties(s map[string]any) bool {
	props, _ := s["properties"].(map[string]any)
	for _, p := range props {
		pm, _ := p.(map[string]any)
		switch schemaType(pm) {
		case "string", "integer", "number", "boolean":
		default:
			if _, ok := pm["enum"]; !ok {
				return false
			}
		}
	}
	return true
}

// bodyArgs adds each property of an object body as an argument, renamed
// body_<name> when a parameter has the name already, and returns the
// property → argument pairs in name order.
func (b *builder) bodyArgs(s map[string]any) [][2]string {
	props := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	var pairs [][2]string
	for _, name := range sortedKeys(props) {
		arg := argName(name)
		if b.args.has(arg) {
			arg = "body_" + arg
		}
		arg = b.args.unique(arg)
		b.props[arg] = props[name]
		if slices.Contains(req, any(name)) {
			b.required = append(b.required, arg)
		}
		pairs = append(pairs, [2]string{name, arg})
	}
	return pairs
}

func (b *builder) flatBody(s map[string]any) {
	body := map[string]any{}
	for _, p := range b.bodyArgs(s) {
		body[p[0]] = "{{." + p[1] + "}}"
	}
	b.http.Body = body
}

// formBody writes a urlencoded template: required fields always, optional
// ones only when given.
func (b *builder) formBody(s map[string]any) {
	var must, opt []string
	for _, p := range b.bodyArgs(s) {
		if slices.Contains(b.required, any(p[1])) {
			must = append(must, fmt.Sprintf("%s={{urlquery .%s}}", p[0], p[1]))
		} else {
			opt = append(opt, fmt.Sprintf("{{with .%s}}&%s={{urlquery .}}{{end}}", p[1], p[0]))
		}
	}
	b.http.Body = strings.Join(must, "&") + strings.Join(opt, "")
	b.http.ContentType = "application/x-www-form-urlencoded"
}

// wholeBody offers the body as one argument.
func (b *builder) wholeBody(s map[string]any, desc string, required bool, format, contentType string) {
	if desc = strings.TrimSpace(desc); desc != "" {
		s = maps.Clone(s)
		s["description"] = desc
	}
	arg := "body"
	if b.args.has(arg) {
		arg = "request_body"
	}
	arg = b.args.unique(arg)
	b.props[arg] = s
	if required {
		b.required = append(b.required, arg)
	}
	b.http.Body = fmt.Sprintf(format, arg)
	b.http.ContentType = contentType
}

// schemaType is a schema's type, ignoring "null" in a type list.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if e != "null" {
				str, _ := e.(string)
				return str
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}
