package tool

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxCoerceDepth stops coercion of absurdly nested or self-referencing
// schemas; validation still reports whatever is left wrong.
const maxCoerceDepth = 32

// kinds is a set of JSON types a schema node accepts.
type kinds uint8

const (
	kNull kinds = 1 << iota
	kBoolean
	kNumber
	kInteger
	kString
	kArray
	kObject
)

func (k kinds) has(x kinds) bool { return k&x != 0 }

// coerce repairs v toward schema s and reports whether it changed
// anything. A node that already validates is never touched, so a value
// the tool author allowed is never reinterpreted. Containers are repaired
// in place: v comes from decodeJSON and belongs to the caller alone.
func coerce(s *jsonschema.Schema, v any, depth int) (any, bool) {
	if s == nil || depth > maxCoerceDepth || s.Validate(v) == nil {
		return v, false
	}
	s = deref(s)
	changed := false
	for _, sub := range s.AllOf {
		if c, ok := coerce(sub, v, depth+1); ok {
			v, changed = c, true
		}
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		for _, alt := range alts {
			if c, ok := coerce(alt, v, depth+1); ok && s.Validate(c) == nil {
				return c, true
			}
		}
	}
	want := kindsOf(s, 0)
	var c any
	var ok bool
	switch x := v.(type) {
	case string:
		c, ok = coerceString(s, want, x, depth)
	case json.Number:
		c, ok = coerceNumber(s, want, x)
	case bool:
		c, ok = coerceBool(s, want, x)
	case map[string]any:
		c, ok = coerceObject(s, want, x, depth)
	case []any:
		c, ok = coerceArray(s, want, x, depth)
	}
	if ok {
		return c, true
	}
	return v, changed
}

// deref follows a node that is only a $ref to the schema it names.
func deref(s *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; i < 8 && s.Ref != nil && s.Types == nil && s.Properties == nil &&
		s.Items2020 == nil && s.Items == nil && s.Format == nil && s.Enum == nil; i++ {
		s = s.Ref
	}
	return s
}

// kindsOf collects the types a node accepts from type, enum and const,
// looking through $ref. Zero means the node does not say.
func kindsOf(s *jsonschema.Schema, depth int) kinds {
	if s == nil || depth > 8 {
		return 0
	}
	var k kinds
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			k |= kindByName(t)
		}
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			k |= kindOfValue(v)
		}
	}
	if s.Const != nil {
		k |= kindOfValue(*s.Const)
	}
	if k == 0 {
		switch {
		case s.Properties != nil:
			k = kObject
		case s.Items2020 != nil || s.Items != nil || s.PrefixItems != nil:
			k = kArray
		}
	}
	return k | kindsOf(s.Ref, depth+1)
}

func kindByName(t string) kinds {
	switch t {
	case "null":
		return kNull
	case "boolean":
		return kBoolean
	case "number":
		return kNumber
	case "integer":
		return kInteger
	case "string":
		return kString
	case "array":
		return kArray
	case "object":
		return kObject
	}
	return 0
}

func kindOfValue(v any) kinds {
	switch v.(type) {
	case nil:
		return kNull
	case bool:
		return kBoolean
	case string:
		return kString
	case []any:
		return kArray
	case map[string]any:
		return kObject
	}
	return kNumber
}

// coerceObject repairs each property against its schema and drops
// properties sent as null that are optional and do not accept null: models
// often spell "not given" that way.
func coerceObject(s *jsonschema.Schema, want kinds, m map[string]any, depth int) (any, bool) {
	if want != 0 && !want.has(kObject) {
		switch {
		case want.has(kArray):
			return wrap(s, m, depth)
		case want.has(kString):
			if b, err := marshalNoEscape(m); err == nil {
				return string(b), true
			}
		}
		return nil, false
	}
	changed := false
	for k, val := range m {
		ps := propertySchema(s, k)
		if ps == nil {
			continue
		}
		if val == nil && !slices.Contains(s.Required, k) && ps.Validate(nil) != nil {
			delete(m, k)
			changed = true
			continue
		}
		if c, ok := coerce(ps, val, depth+1); ok {
			m[k] = c
			changed = true
		}
	}
	return m, changed
}

// propertySchema finds the schema a property's value must match.
func propertySchema(s *jsonschema.Schema, name string) *jsonschema.Schema {
	if ps, ok := s.Properties[name]; ok {
		return ps
	}
	for re, ps := range s.PatternProperties {
		if re.MatchString(name) {
			return ps
		}
	}
	if ps, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		return ps
	}
	return nil
}

// coerceArray repairs each item, or unwraps a one-item list sent where a
// single value is expected.
func coerceArray(s *jsonschema.Schema, want kinds, a []any, depth int) (any, bool) {
	if want != 0 && !want.has(kArray) {
		if len(a) == 1 {
			if c, _ := coerce(s, a[0], depth+1); s.Validate(c) == nil {
				return c, true
			}
		}
		return nil, false
	}
	changed := false
	for i, item := range a {
		if c, ok := coerce(itemSchema(s, i), item, depth+1); ok {
			a[i] = c
			changed = true
		}
	}
	return a, changed
}

// itemSchema finds the schema the i-th item of an array must match, under
// draft 2020-12 (prefixItems, items) and older drafts (items as a list,
// additionalItems).
func itemSchema(s *jsonschema.Schema, i int) *jsonschema.Schema {
	if i < len(s.PrefixItems) {
		return s.PrefixItems[i]
	}
	if s.Items2020 != nil {
		return s.Items2020
	}
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		return items
	case []*jsonschema.Schema:
		if i < len(items) {
			return items[i]
		}
		if add, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			return add
		}
	}
	return nil
}

// wrap puts a single value into a one-item list, coercing it as the list's
// first item.
func wrap(s *jsonschema.Schema, v any, depth int) (any, bool) {
	item, _ := coerce(itemSchema(s, 0), v, depth+1)
	return []any{item}, true
}

// trimmed reports s without surrounding whitespace, including the
// full-width space common in CJK input.
func trimmed(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\u3000' })
}
