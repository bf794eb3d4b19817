package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Lookup finds an environment variable, like os.LookupEnv. Everything in
// this package reads the environment through one, so tests inject a map
// and nothing here ever calls os.Setenv.
type Lookup func(name string) (string, bool)

// MapLookup returns a Lookup over a fixed map, for tests and embedding.
func MapLookup(m map[string]string) Lookup {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// environment is the process environment over the variables of .env: a
// variable set in both is taken from the process, so an export in the
// shell beats the file.
type environment struct {
	proc   Lookup
	dotenv map[string]dotenvEntry
	file   string // ".env" in messages
}

// lookup returns a variable and where it came from: "env NAME" or
// ".env:LINE NAME".
func (e *environment) lookup(name string) (value, source string, ok bool) {
	if e.proc != nil {
		if v, ok := e.proc(name); ok {
			return v, "env " + name, true
		}
	}
	if ent, ok := e.dotenv[name]; ok {
		return ent.Value, fmt.Sprintf("%s:%d %s", e.file, ent.Line, name), true
	}
	return "", "", false
}

// get is lookup without the source, usable as a Lookup.
func (e *environment) get(name string) (string, bool) {
	v, _, ok := e.lookup(name)
	return v, ok
}

// EnvName is the variable that overrides key: "HERMES_" and the key's
// segments upper-cased, with anything but letters and digits turned into
// "_" (model.default → HERMES_MODEL_DEFAULT,
// fallback_providers[0].model → HERMES_FALLBACK_PROVIDERS_0_MODEL).
func EnvName(key string) string {
	segs, err := splitKey(key)
	if err != nil {
		return ""
	}
	return envName(segs)
}

func envName(segs []string) string {
	var b strings.Builder
	b.WriteString("HERMES")
	for _, s := range segs {
		b.WriteByte('_')
		for _, c := range strings.ToUpper(s) {
			if c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// leafPaths lists the segments of every leaf of v: every field of the
// structs, and the map entries and list elements that exist. New map
// entries cannot come from the environment, since their names are unknown
// until config.yaml or a flag names them.
func leafPaths(v reflect.Value, segs []string, out *[][]string) {
	t := v.Type()
	switch {
	case isLeaf(t):
		*out = append(*out, segs)
	case t == nodeType:
	case t.Kind() == reflect.Struct:
		for _, f := range fieldsOf(t) {
			leafPaths(v.Field(f.index), append(segs[:len(segs):len(segs)], f.name), out)
		}
	case t.Kind() == reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			leafPaths(v.MapIndex(k), append(segs[:len(segs):len(segs)], k.String()), out)
		}
	case t.Kind() == reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			leafPaths(v.Index(i), append(segs[:len(segs):len(segs)], fmt.Sprint(i)), out)
		}
	}
}

// applyEnv sets every leaf whose HERMES_* variable is present, reading
// the process environment first and then .env. A bad value is reported
// naming the variable.
func applyEnv(cfg *Config, env *environment, origins map[string]string) []error {
	root := reflect.ValueOf(cfg).Elem()
	var paths [][]string
	leafPaths(root, nil, &paths)
	var errs []error
	for _, segs := range paths {
		text, source, ok := env.lookup(envName(segs))
		if short, isShort := shorthandOf(configType, segs); !ok && isShort {
			// A section written as one value is also set by its own
			// variable: HERMES_MEMORY_LONG_TERM=false stands for
			// memory.long_term.enabled, as long_term: false does.
			text, source, ok = env.lookup(envName(short))
		}
		if !ok {
			continue
		}
		key := joinKey(configType, segs)
		if err := setText(root, segs, key, text, source); err != nil {
			errs = append(errs, err)
			continue
		}
		origins[key] = source
	}
	return errs
}

// applyOverrides sets the dotted keys given on the command line, which
// may name keys (such as a new provider) that exist nowhere else yet.
func applyOverrides(cfg *Config, overrides map[string]string, origins map[string]string) []error {
	root := reflect.ValueOf(cfg).Elem()
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		segs, err := splitKey(k)
		if err != nil {
			errs = append(errs, fmt.Errorf("command line: %w", err))
			continue
		}
		key := joinKey(configType, segs)
		if err := setText(root, segs, key, overrides[k], "command line"); err != nil {
			errs = append(errs, err)
			continue
		}
		origins[key] = "command line"
	}
	return errs
}

// setText parses text into the leaf at segs, reporting problems as coming
// from source.
func setText(root reflect.Value, segs []string, key, text, source string) error {
	reached := false
	err := walk(root, segs, nil, true, func(v reflect.Value, check string) error {
		reached = true
		if !isLeaf(v.Type()) {
			return fmt.Errorf("%s: %s is a section; set one of its keys, such as %s", source, key, firstLeaf(v, key))
		}
		if p := parseLeaf(v, text, check); p != "" {
			shown := text
			if v.Type() == secretType {
				shown = Redact(text)
			}
			return badValue(source, key, shown, p)
		}
		return nil
	})
	if err == nil || reached {
		return err
	}
	if uk, ok := err.(*UnknownKeyError); ok {
		uk.Source = source
		uk.Suggestions = keySuggestions(root, uk.Key)
		return uk
	}
	return fmt.Errorf("%s: %w", source, err)
}

// firstLeaf names a leaf below the section v, for messages.
func firstLeaf(v reflect.Value, key string) string {
	var paths [][]string
	leafPaths(v, nil, &paths)
	if len(paths) == 0 {
		return key + ".NAME"
	}
	return key + "." + strings.Join(paths[0], ".")
}

// shorthandOf reports whether segs, a leaf of type t, is the key a
// section with a shorthand form stands for, and returns the section's
// segments.
func shorthandOf(t reflect.Type, segs []string) ([]string, bool) {
	for i, s := range segs {
		switch t.Kind() {
		case reflect.Slice, reflect.Map:
			t = t.Elem()
			continue
		case reflect.Struct:
		default:
			return nil, false
		}
		if i == len(segs)-1 {
			sh, ok := reflect.New(t).Interface().(shorthand)
			return segs[:i], ok && sh.shorthandKey() == s
		}
		f, ok := fieldByName(t, s)
		if !ok {
			return nil, false
		}
		t = t.Field(f.index).Type
	}
	return nil, false
}
