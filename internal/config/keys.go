package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Keys are dotted paths through the Config struct, named by yaml tags:
// "model.default", "providers.local.base_url", and for lists either
// "fallback_providers[0].model" or "fallback_providers.0.model". The same
// keys address values in config.yaml, in HERMES_* variables, in flags, in
// Get and in Set.

// configType is the root every key is relative to.
var configType = reflect.TypeOf(Config{})

// field is one settable struct field, found through its yaml tag.
type field struct {
	name  string
	index int
	check string
}

// fieldsOf lists the fields of struct type t that have a yaml name.
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{name: name, index: i, check: f.Tag.Get("check")})
	}
	return out
}

// fieldByName finds the field named name in struct type t.
func fieldByName(t reflect.Type, name string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// fieldNames lists the yaml names of struct type t, for suggestions.
func fieldNames(t reflect.Type) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		out = append(out, f.name)
	}
	return out
}

// splitKey turns "fallback_providers[0].model" into its segments.
func splitKey(key string) ([]string, error) {
	k := strings.ReplaceAll(strings.ReplaceAll(key, "[", "."), "]", "")
	segs := strings.Split(k, ".")
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("key %q is not accepted; write dotted names such as model.default", key)
		}
	}
	return segs, nil
}

// joinKey renders segments below type t the way messages show keys, with
// list indexes in brackets.
func joinKey(t reflect.Type, segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		switch t.Kind() {
		case reflect.Slice:
			b.WriteString("[" + s + "]")
			t = t.Elem()
			continue
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			if f, ok := fieldByName(t, s); ok {
				t = t.Field(f.index).Type
			}
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// appendKey extends a rendered key by one segment.
func appendKey(key, seg string) string {
	if key == "" {
		return seg
	}
	return key + "." + seg
}

// walk calls fn for the value at segs below v, a Config. With create set
// it creates map entries and appends one list element on the way; it works
// on a copy of a map entry and stores it back only if fn succeeds, so a
// rejected value leaves the configuration as it was. Without create, a
// missing map entry reads as its zero value.
func walk(v reflect.Value, segs []string, done []string, create bool, fn func(v reflect.Value, check string) error) error {
	return walkCheck(v, segs, done, "", create, fn)
}

func walkCheck(v reflect.Value, segs, done []string, check string, create bool, fn func(reflect.Value, string) error) error {
	if len(segs) == 0 {
		return fn(v, check)
	}
	seg, rest, here := segs[0], segs[1:], append(done[:len(done):len(done)], segs[0])
	if isLeaf(v.Type()) || v.Type() == nodeType {
		return &UnknownKeyError{Key: joinKey(configType, append(here, rest...))}
	}
	switch v.Kind() {
	case reflect.Struct:
		f, ok := fieldByName(v.Type(), seg)
		if !ok {
			return &UnknownKeyError{Key: joinKey(configType, append(here, rest...))}
		}
		return walkCheck(v.Field(f.index), rest, here, f.check, create, fn)
	case reflect.Map:
		key := reflect.ValueOf(seg).Convert(v.Type().Key())
		elem := reflect.New(v.Type().Elem()).Elem()
		if old := v.MapIndex(key); old.IsValid() {
			elem.Set(old)
		}
		if err := walkCheck(elem, rest, here, check, create, fn); err != nil {
			return err
		}
		if create {
			if v.IsNil() {
				v.Set(reflect.MakeMap(v.Type()))
			}
			v.SetMapIndex(key, elem)
		}
		return nil
	case reflect.Slice:
		n := v.Len()
		if create {
			n++
		}
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= n {
			if n == 0 {
				return fmt.Errorf("%s has no entries", joinKey(configType, done))
			}
			return fmt.Errorf("%s[%s] is not accepted; use an index from 0 to %d", joinKey(configType, done), seg, n-1)
		}
		if i < v.Len() {
			return walkCheck(v.Index(i), rest, here, check, create, fn)
		}
		v.Set(reflect.Append(v, reflect.New(v.Type().Elem()).Elem()))
		if err := walkCheck(v.Index(i), rest, here, check, create, fn); err != nil {
			v.Set(v.Slice(0, i))
			return err
		}
		return nil
	}
	return fmt.Errorf("%s: cannot be addressed by key", strings.Join(done, "."))
}

// knownKeys lists every key of v (sections and leaves), descending into
// the map entries and list elements that exist, for suggestions.
func knownKeys(v reflect.Value, prefix string, out *[]string) {
	if isLeaf(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			k := appendKey(prefix, f.name)
			*out = append(*out, k)
			knownKeys(v.Field(f.index), k, out)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, mk := range keys {
			k := appendKey(prefix, mk.String())
			*out = append(*out, k)
			knownKeys(v.MapIndex(mk), k, out)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			k := fmt.Sprintf("%s[%d]", prefix, i)
			*out = append(*out, k)
			knownKeys(v.Index(i), k, out)
		}
	}
}

// keySuggestions finds the known keys closest to key: by the whole key,
// and by its last segment when that names a key elsewhere ("max_turns"
// suggests "agent.max_turns").
func keySuggestions(root reflect.Value, key string) []string {
	var all []string
	knownKeys(root, "", &all)
	out := suggest(key, all)
	last := key[strings.LastIndexAny(key, ".]")+1:]
	for _, k := range all {
		if len(out) >= 3 {
			break
		}
		if k != key && (k == last || strings.HasSuffix(k, "."+last)) && !contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
