package declared

import (
	"fmt"
)

// bodyValue is a compiled JSON body: a mapping or list whose string
// values are templates.
type bodyValue struct {
	lit    any      // a number, bool or null written in the file
	t      *tmpl    // a string value
	keys   []string // an object's keys, sorted
	fields map[string]*bodyValue
	items  []*bodyValue // a list
	isObj  bool
	isList bool
}

// bodyValue compiles a body mapping, list or value.
func (c compiler) bodyValue(field string, v any) *bodyValue {
	switch x := v.(type) {
	case map[string]any:
		b := &bodyValue{isObj: true, fields: map[string]*bodyValue{}}
		for _, k := range sortedKeys(x) {
			b.keys = append(b.keys, k)
			b.fields[k] = c.bodyValue(field+"."+k, x[k])
		}
		return b
	case []any:
		b := &bodyValue{isList: true}
		for i, e := range x {
			b.items = append(b.items, c.bodyValue(fmt.Sprintf("%s[%d]", field, i), e))
		}
		return b
	case string:
		return &bodyValue{t: c.template(field, x, escNone)}
	case map[any]any:
		c.fail(field, "a body mapping must have string keys")
		return &bodyValue{}
	}
	return &bodyValue{lit: v}
}

// render builds the JSON value of one call. present is false for a
// value that is left out: "{{.name}}" when the argument is absent, or
// another template that rendered empty.
func (b *bodyValue) render(args map[string]any, ce *callEnv) (v any, present bool, err error) {
	switch {
	case b.isObj:
		out := map[string]any{}
		for _, k := range b.keys {
			v, ok, err := b.fields[k].render(args, ce)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out[k] = v
			}
		}
		return out, true, nil
	case b.isList:
		out := []any{}
		for _, it := range b.items {
			v, ok, err := it.render(args, ce)
			if err != nil {
				return nil, false, err
			}
			if ok {
				out = append(out, v)
			}
		}
		return out, true, nil
	case b.t != nil:
		if b.t.whole != "" {
			v, ok := args[b.t.whole]
			return v, ok && v != nil, nil
		}
		if b.t.literal() {
			return b.t.src, true, nil
		}
		s, err := b.t.render(args, ce)
		if err != nil {
			return nil, false, err
		}
		return s, s != "", nil
	}
	return b.lit, true, nil
}
