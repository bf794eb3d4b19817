package openapi

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
)

// dropped reports the Schema Object keys that are OpenAPI's, not JSON
// Schema's, or that would change how a tool's schema is compiled ($id
// moves the base URI; $schema switches the dialect).
func dropped(key string) bool {
	switch key {
	case "discriminator", "xml", "externalDocs",
		"$id", "$schema", "$anchor", "$dynamicAnchor",
		"$dynamicRef", "$comment", "$defs", "definitions":
		return true
	}
	return false
}

// schemaMaps are keywords whose value is a mapping of names to schemas.
var schemaMaps = []string{"properties", "patternProperties", "dependentSchemas"}

// schemaLists are keywords whose value is a list of schemas.
var schemaLists = []string{"allOf", "anyOf", "oneOf", "prefixItems"}

// schemaOne are keywords whose value is one schema.
var schemaOne = []string{"items", "additionalProperties", "not", "contains", "propertyNames",
	"unevaluatedProperties", "unevaluatedItems", "if", "then", "else"}

// converter turns resolved OpenAPI schemas into JSON Schema 2020-12, the
// dialect tool parameters are compiled with. OpenAPI 3.0 schemas need
// their differences translated (nullable, example, boolean
// exclusiveMinimum); 3.1 schemas are 2020-12 already and only lose
// OpenAPI-only keywords. Properties marked readOnly are left out: a tool's
// arguments are what is sent, and the server ignores or rejects those.
type converter struct {
	oas30 bool
}

// convert returns the JSON Schema form of one resolved schema.
func (c converter) convert(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return normalizeNumbers(s)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case dropped(k), strings.HasPrefix(k, "x-"):
		case slices.Contains(schemaMaps, k):
			out[k] = c.convertMap(k, v)
		case slices.Contains(schemaLists, k):
			if list, ok := v.([]any); ok {
				conv := make([]any, len(list))
				for i, e := range list {
					conv[i] = c.convert(e)
				}
				out[k] = conv
			}
		case slices.Contains(schemaOne, k):
			out[k] = c.convert(v)
		default:
			out[k] = normalizeNumbers(v)
		}
	}
	if c.oas30 {
		c.translate30(out)
	}
	// Sloppy documents carry Swagger habits (required: true on a
	// property, examples as a mapping) that JSON Schema's meta-schema
	// refuses; they are dropped rather than failing the whole tool.
	if _, ok := out["required"].([]any); !ok {
		delete(out, "required")
	}
	if _, ok := out["examples"].([]any); !ok {
		delete(out, "examples")
	}
	if ex, ok := out["example"]; ok {
		if _, has := out["examples"]; !has {
			out["examples"] = []any{ex}
		}
		delete(out, "example")
	}
	if req, ok := out["required"].([]any); ok {
		// readOnly properties were removed; so must their requirement be.
		ro := readOnlyNames(m)
		req = slices.DeleteFunc(slices.Clone(req), func(r any) bool {
			name, _ := r.(string)
			return ro[name]
		})
		if len(req) == 0 {
			delete(out, "required")
		} else {
			out["required"] = req
		}
	}
	flattenAllOf(out)
	return out
}

// convertMap converts a mapping of names to schemas, leaving out readOnly
// properties.
func (c converter) convertMap(key string, v any) any {
	mm, ok := v.(map[string]any)
	if !ok {
		return v
	}
	conv := make(map[string]any, len(mm))
	for name, e := range mm {
		if key == "properties" {
			if sm, ok := e.(map[string]any); ok && sm["readOnly"] == true {
				continue
			}
		}
		conv[name] = c.convert(e)
	}
	return conv
}

// readOnlyNames lists the properties of s marked readOnly.
func readOnlyNames(s map[string]any) map[string]bool {
	props, _ := s["properties"].(map[string]any)
	ro := map[string]bool{}
	for name, p := range props {
		if pm, ok := p.(map[string]any); ok && pm["readOnly"] == true {
			ro[name] = true
		}
	}
	return ro
}

// translate30 rewrites OpenAPI 3.0's own spellings into JSON Schema.
func (c converter) translate30(s map[string]any) {
	if s["nullable"] == true {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
			s["enum"] = append(slices.Clone(enum), nil)
		}
	}
	delete(s, "nullable")
	for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		ex, ok := s[pair[0]].(bool)
		if !ok {
			continue
		}
		delete(s, pair[0])
		if bound, has := s[pair[1]]; ex && has {
			s[pair[0]] = bound
			delete(s, pair[1])
		}
	}
}

// flattenAllOf merges an allOf of plain object schemas (the usual
// "NewPet plus an id" composition) into one object, which models read
// more reliably. Anything less plain is kept as allOf, which JSON Schema
// supports as is.
func flattenAllOf(s map[string]any) {
	list, ok := s["allOf"].([]any)
	if !ok || len(list) == 0 {
		return
	}
	props := map[string]any{}
	if p, ok := s["properties"].(map[string]any); ok {
		maps.Copy(props, p)
	}
	var required []any
	if r, ok := s["required"].([]any); ok {
		required = append(required, r...)
	}
	description, _ := s["description"].(string)
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return
		}
		for k, v := range m {
			switch k {
			case "type":
				if v != "object" {
					return
				}
			case "properties":
				pm, ok := v.(map[string]any)
				if !ok {
					return
				}
				for name, ps := range pm {
					if old, clash := props[name]; clash && !reflect.DeepEqual(old, ps) {
						return
					}
					props[name] = ps
				}
			case "required":
				r, ok := v.([]any)
				if !ok {
					return
				}
				for _, x := range r {
					if !slices.Contains(required, x) {
						required = append(required, x)
					}
				}
			case "description":
				if description == "" {
					description, _ = v.(string)
				}
			case "title":
			default:
				return
			}
		}
	}
	delete(s, "allOf")
	s["type"] = "object"
	s["properties"] = props
	if len(required) > 0 {
		s["required"] = required
	}
	if description != "" {
		s["description"] = description
	}
}

// normalizeNumbers turns integral floats into ints throughout v. YAML
// writes 5.0 as 5 and reads it back as an int, so without this a
// generated file would not read back equal to what was written.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeNumbers(e)
		}
		return out
	}
	return v
}
