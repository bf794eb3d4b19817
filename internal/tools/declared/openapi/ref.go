package openapi

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxNodes bounds how many maps and lists resolving one operation may
// produce. Refs are expanded inline, so a document that shares schemas
// heavily could otherwise grow exponentially.
const maxNodes = 200_000

// ExternalRefError reports a $ref to another file or URL. Only refs inside
// the document are resolved: reading other files or fetching URLs is the
// job of a bundler, and an import must not reach the network.
type ExternalRefError struct {
	Ref string
}

func (e *ExternalRefError) Error() string {
	return fmt.Sprintf("openapi: external $ref %q is not supported; only refs inside the document (\"#/components/...\") are resolved: "+
		"bundle the document into one file first (for example `npx @redocly/cli bundle`)", e.Ref)
}

// errTooLarge stops the expansion of a document whose refs multiply. It
// is a type rather than a fmt.Errorf value, so that it costs nothing at
// start-up.
var errTooLarge = tooLargeError{}

type tooLargeError struct{}

func (tooLargeError) Error() string {
	return fmt.Sprintf("openapi: resolving $refs produced more than %d nodes; the document shares schemas too heavily to inline", maxNodes)
}

// resolver expands local $refs into copies of their targets. A ref met
// again while its own expansion is in progress is a cycle (a Category
// whose parent is a Category); it is replaced by a plain object schema so
// the result is finite and still says what was there.
type resolver struct {
	root  map[string]any
	stack []string
	nodes int
}

func newResolver(root map[string]any) *resolver { return &resolver{root: root} }

// resolve returns a deep copy of v with every $ref replaced by its target.
// The document itself is never modified.
func (r *resolver) resolve(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		if err := r.count(); err != nil {
			return nil, err
		}
		if ref, ok := x["$ref"].(string); ok {
			return r.follow(ref, x)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := r.resolve(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []any:
		if err := r.count(); err != nil {
			return nil, err
		}
		out := make([]any, len(x))
		for i, e := range x {
			c, err := r.resolve(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

func (r *resolver) count() error {
	r.nodes++
	if r.nodes > maxNodes {
		return errTooLarge
	}
	return nil
}

// follow expands one $ref. Keys written next to the $ref (OpenAPI 3.1
// allows summary and description there) override the target's.
func (r *resolver) follow(ref string, at map[string]any) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, &ExternalRefError{Ref: ref}
	}
	if slices.Contains(r.stack, ref) {
		return map[string]any{
			"type":        "object",
			"description": fmt.Sprintf("(recursive: %s)", refName(ref)),
		}, nil
	}
	target, err := r.lookup(ref)
	if err != nil {
		return nil, err
	}
	r.stack = append(r.stack, ref)
	res, err := r.resolve(target)
	r.stack = r.stack[:len(r.stack)-1]
	if err != nil {
		return nil, err
	}
	if len(at) > 1 {
		if m, ok := res.(map[string]any); ok {
			for k, e := range at {
				if k == "$ref" {
					continue
				}
				c, err := r.resolve(e)
				if err != nil {
					return nil, err
				}
				m[k] = c
			}
		}
	}
	return res, nil
}

// lookup finds the value a local ref points to: a JSON pointer in a URI
// fragment, so both percent-escapes and the ~0 (~) and ~1 (/) escapes
// apply.
func (r *resolver) lookup(ref string) (any, error) {
	frag, err := url.PathUnescape(strings.TrimPrefix(ref, "#"))
	if err != nil {
		return nil, fmt.Errorf("openapi: $ref %q: bad escape: %w", ref, err)
	}
	if frag == "" {
		return r.root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("openapi: $ref %q: want a JSON pointer such as #/components/schemas/Pet", ref)
	}
	var cur any = r.root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("openapi: $ref %q: %q not found", ref, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("openapi: $ref %q: %q is not an index of a list of %d", ref, tok, len(c))
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("openapi: $ref %q: cannot descend into %s at %q", ref, kind(cur), tok)
		}
	}
	return cur, nil
}

// refName is the last segment of a ref, unescaped: the component's name.
func refName(ref string) string {
	name := ref[strings.LastIndex(ref, "/")+1:]
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
}

// isExternal reports whether err is (or wraps) an ExternalRefError.
func isExternal(err error) (*ExternalRefError, bool) {
	var e *ExternalRefError
	ok := errors.As(err, &e)
	return e, ok
}
