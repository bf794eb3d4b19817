package declared

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// envRefPattern matches an environment reference in a template:
// ${NAME} or ${NAME:-default}.
var envRefPattern = lazy.Regexp{Expr: `\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`}

// minMaskLen is the shortest secret value that is masked: replacing one
// or two characters everywhere in a result would garble it and hide
// nothing worth hiding.
const minMaskLen = 4

// envRef is one ${NAME} reference of a template. Credential marks a
// reference in a place that carries credentials (a header, a query
// parameter, a URL's user information), whose value is kept as secret as
// that of a variable whose name looks secret.
type envRef struct {
	Name       string
	Default    string
	HasDefault bool
	Credential bool
}

// rewriteEnv replaces every ${NAME} reference in src by a call of the
// template function _env, so references are resolved when the template
// executes (at call time) and their values are inserted as they are:
// never escaped and never parsed as template text.
func rewriteEnv(src string) (string, []envRef) {
	var refs []envRef
	out := envRefPattern.Get().ReplaceAllStringFunc(src, func(m string) string {
		sub := envRefPattern.Get().FindStringSubmatch(m)
		r := envRef{Name: sub[1], Default: sub[3], HasDefault: sub[2] != ""}
		refs = append(refs, r)
		return fmt.Sprintf("{{%s %s %s %t}}", envFunc, strconv.Quote(r.Name), strconv.Quote(r.Default), r.HasDefault)
	})
	return out, refs
}

// callEnv is the environment of one call: the values of the variables
// the tool refers to, looked up once when the call starts, and the masker
// that keeps the secret ones out of everything shown.
type callEnv struct {
	values map[string]string
	mask   *masker
}

// resolveEnv looks up every variable refs name. A variable referred to
// without a default that is not set fails the call, naming it.
func resolveEnv(lookup func(string) (string, bool), refs []envRef) (*callEnv, error) {
	ce := &callEnv{values: map[string]string{}}
	credential := map[string]bool{}
	for _, r := range refs {
		credential[r.Name] = credential[r.Name] || r.Credential
	}
	var secrets []secretValue
	for _, r := range refs {
		if _, done := ce.values[r.Name]; done {
			continue
		}
		v, ok := "", false
		if lookup != nil {
			v, ok = lookup(r.Name)
		}
		if !ok && !r.HasDefault && !anyDefault(refs, r.Name) {
			return nil, tool.Errorf(tool.CodeInternal, "%s is not set; add it to $HERMES_HOME/.env", r.Name)
		}
		if !ok {
			continue
		}
		ce.values[r.Name] = v
		if (redact.SecretEnvName(r.Name) || credential[r.Name]) && len(v) >= minMaskLen {
			secrets = append(secrets, secretValue{name: r.Name, value: v})
		}
	}
	ce.mask = newMasker(secrets)
	return ce, nil
}

// credentialNames lists, sorted and once each, the variables refs name
// in places that carry credentials.
func credentialNames(refs []envRef) []string {
	var names []string
	for _, r := range refs {
		if r.Credential && !slices.Contains(names, r.Name) {
			names = append(names, r.Name)
		}
	}
	slices.Sort(names)
	return names
}

// urlCredentials says which of the ${NAME} references of a URL template
// src, by their order, sit in its user information or its query.
func urlCredentials(src string) func(i int) bool {
	var spans [][2]int
	if a := strings.Index(src, "://"); a >= 0 {
		a += 3
		e := len(src)
		if j := strings.IndexAny(src[a:], "/?#"); j >= 0 {
			e = a + j
		}
		if at := strings.LastIndex(src[a:e], "@"); at >= 0 {
			spans = append(spans, [2]int{a, a + at})
		}
	}
	if q := strings.Index(src, "?"); q >= 0 {
		e := len(src)
		if h := strings.Index(src[q:], "#"); h >= 0 {
			e = q + h
		}
		spans = append(spans, [2]int{q, e})
	}
	matches := envRefPattern.Get().FindAllStringIndex(src, -1)
	return func(i int) bool {
		if i >= len(matches) {
			return false
		}
		for _, sp := range spans {
			if matches[i][0] >= sp[0] && matches[i][0] < sp[1] {
				return true
			}
		}
		return false
	}
}

// anyDefault reports whether every reference to name has a default, so
// an unset variable is fine.
func anyDefault(refs []envRef, name string) bool {
	for _, r := range refs {
		if r.Name == name && !r.HasDefault {
			return false
		}
	}
	return true
}

// lookupRef returns the value a reference stands for: the variable's
// value, or the default when it is unset or empty and a default is given.
func (ce *callEnv) lookupRef(name, def string, hasDefault bool) (string, error) {
	v, ok := ce.values[name]
	if hasDefault && (!ok || v == "") {
		return def, nil
	}
	if !ok {
		return "", fmt.Errorf("%s is not set; add it to $HERMES_HOME/.env", name)
	}
	return v, nil
}

// secretValue is the value of a variable whose name looks secret.
type secretValue struct{ name, value string }

// masker replaces the values of secret variables by ${NAME}, in plain,
// path-escaped and query-escaped form, so neither a trace, an error nor
// a result echoing the request shows them.
type masker struct {
	r *strings.Replacer
}

func newMasker(secrets []secretValue) *masker {
	type pair struct{ old, new string }
	var pairs []pair
	for _, s := range secrets {
		ref := "${" + s.name + "}"
		forms := []string{s.value, url.PathEscape(s.value), url.QueryEscape(s.value)}
		for i, f := range forms {
			if i == 0 || f != s.value {
				pairs = append(pairs, pair{f, ref})
			}
		}
	}
	if len(pairs) == 0 {
		return &masker{}
	}
	// Longer values first, so a secret containing another is replaced
	// whole.
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.old) - len(a.old) })
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, p.new)
	}
	return &masker{r: strings.NewReplacer(args...)}
}

// String masks s.
func (m *masker) String(s string) string {
	if m == nil || m.r == nil {
		return s
	}
	return m.r.Replace(s)
}

// Value masks every string inside v, a value decoded from JSON or built
// by this package (maps, slices, strings).
func (m *masker) Value(v any) any {
	if m == nil || m.r == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return m.r.Replace(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[m.r.Replace(k)] = m.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = m.Value(e)
		}
		return out
	}
	return v
}

// Error masks the message and data of err, keeping its code; any other
// error becomes an internal *tool.Error with a masked message.
func (m *masker) Error(err error) error {
	if err == nil {
		return nil
	}
	if te, ok := tool.AsError(err); ok {
		return &tool.Error{Code: te.Code, Message: m.String(te.Message), Retryable: te.Retryable, Data: m.Value(te.Data)}
	}
	return &tool.Error{Code: tool.CodeInternal, Message: m.String(err.Error())}
}
