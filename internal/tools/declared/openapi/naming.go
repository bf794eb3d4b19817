package openapi

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/internal/lazy"
)

// maxToolName is the longest tool name the model APIs accept.
const maxToolName = 64

// identifier matches argument names a template can use as {{.name}}.
var identifier = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// envName matches environment variable names usable as ${NAME}.
var envName = lazy.Regexp{Expr: `^[A-Za-z_][A-Za-z0-9_]*$`}

// snake converts an operationId or path to snake_case: listPets becomes
// list_pets, get-user.byId becomes get_user_by_id, HTTPServer becomes
// http_server. Runs of anything but letters and digits become one
// underscore.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	sep := false
	for i, r := range rs {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			sep = b.Len() > 0
			continue
		}
		if unicode.IsUpper(r) && b.Len() > 0 && i > 0 {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				sep = true
			}
		}
		if sep {
			b.WriteByte('_')
			sep = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// upperSnake is snake in capitals, for environment variable names.
func upperSnake(s string) string { return strings.ToUpper(snake(s)) }

// normalizePrefix makes a tool-name prefix end in a separator, so
// "petstore" and "petstore_" both give petstore_list_pets.
func normalizePrefix(p string) string {
	p = sanitizeName(p)
	if p != "" && !strings.HasSuffix(p, "_") && !strings.HasSuffix(p, "-") {
		p += "_"
	}
	return p
}

// sanitizeName keeps the characters tool names may contain, replacing
// others with underscores.
func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			return r
		}
		return '_'
	}, s)
}

// baseName is the tool name of an operation before the prefix: its
// operationId in snake_case, or method_path when it has none.
func baseName(op *operation) string {
	if op.id != "" {
		if n := snake(op.id); n != "" {
			return n
		}
	}
	return op.method + "_" + snake(op.path)
}

// names hands out unique names: tool names, or argument names within one
// tool.
type names struct {
	used map[string]bool
	max  int
}

func newNames(max int) *names { return &names{used: map[string]bool{}, max: max} }

// unique returns name, or name_2, name_3 ... when it is taken, cut to the
// length limit.
func (n *names) unique(name string) string {
	name = cut(name, n.max)
	if !n.used[name] {
		n.used[name] = true
		return name
	}
	for i := 2; ; i++ {
		suffix := fmt.Sprintf("_%d", i)
		c := cut(name, n.max-len(suffix)) + suffix
		if !n.used[c] {
			n.used[c] = true
			return c
		}
	}
}

func (n *names) take(name string) { n.used[name] = true }

func (n *names) has(name string) bool { return n.used[name] }

func cut(s string, max int) string {
	if max > 0 && len(s) > max {
		return strings.TrimRight(s[:max], "_-")
	}
	return s
}

// argName is the argument name for a parameter or body property: the
// name itself when a template can address it as {{.name}}, else its
// snake_case form (X-Request-ID becomes x_request_id).
func argName(name string) string {
	if identifier.Get().MatchString(name) {
		return name
	}
	s := snake(name)
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "p_" + s
	}
	return s
}
