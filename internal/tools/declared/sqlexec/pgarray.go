package sqlexec

import "strings"

// arrayElement reports the PostgreSQL element types whose arrays become
// JSON arrays: those whose text form is unambiguous on its own. Arrays
// of other types (timestamps, ranges, geometric types, whose delimiter
// may not even be a comma) stay in PostgreSQL's text form, which the
// model reads as well as any rendering of it.
func arrayElement(elem string) bool {
	switch elem {
	case "TEXT", "VARCHAR", "BPCHAR", "CHAR", "NAME", "INT2", "INT4", "INT8", "OID",
		"FLOAT4", "FLOAT8", "NUMERIC", "BOOL", "UUID", "DATE", "JSON", "JSONB":
		return true
	}
	return false
}

// pgArray parses the text form of a PostgreSQL array whose elements have
// the type named elem ("{1,2}", "{{a,b},{c,NULL}}", `{"x y","q\"r"}`)
// into nested []any, each element shaped as a value of elem would be. It
// reports false for an element type it does not take apart, and for text
// it cannot read whole, such as an array with explicit bounds
// ("[0:1]={1,2}"): the caller then keeps the text.
func pgArray(s, elem string) (any, bool) {
	if !arrayElement(elem) {
		return nil, false
	}
	p := arrayParser{s: s, elem: elem}
	v, ok := p.array()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return v, true
}

// arrayParser reads an array literal from s, starting at i.
type arrayParser struct {
	s    string
	i    int
	elem string
}

// array reads a {...} list, nested lists included.
func (p *arrayParser) array() ([]any, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return nil, false
	}
	p.i++
	out := []any{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return out, true
	}
	for {
		v, ok := p.element()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if p.i >= len(p.s) {
			return nil, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, true
		default:
			return nil, false
		}
	}
}

// element reads one element: a nested list, a quoted string with
// backslash escapes, or a bare word, where NULL (in any case) is null.
func (p *arrayParser) element() (any, bool) {
	if p.i >= len(p.s) {
		return nil, false
	}
	switch p.s[p.i] {
	case '{':
		return p.array()
	case '"':
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			switch c := p.s[p.i]; c {
			case '\\':
				p.i++
				if p.i >= len(p.s) {
					return nil, false
				}
				b.WriteByte(p.s[p.i])
			case '"':
				p.i++
				return elementValue(b.String(), p.elem), true
			default:
				b.WriteByte(c)
			}
		}
		return nil, false
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != ',' && p.s[p.i] != '}' {
		if c := p.s[p.i]; c == '{' || c == '"' || c == '\\' {
			return nil, false
		}
		p.i++
	}
	word := p.s[start:p.i]
	if word == "" {
		return nil, false
	}
	if strings.EqualFold(word, "NULL") {
		return nil, true
	}
	return elementValue(word, p.elem), true
}

// elementValue is one array element of type elem as JSON.
func elementValue(s, elem string) any {
	if elem == "BOOL" {
		switch s {
		case "t":
			return true
		case "f":
			return false
		}
	}
	return textValue(s, elem, false)
}
