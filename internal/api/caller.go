package api

import (
	"context"

	"github.com/hermes-go/hermes/internal/session"
)

// Caller is who a request comes from: a user of config.yaml, known by
// their key, or the owner (a key of api.keys, or no key where none is
// needed), whose zero value it is.
type Caller struct {
	User, Tenant string
	// Admin sees the sessions of the user's whole tenant.
	Admin bool
	// Viewer approves nothing, not even their own run's commands.
	Viewer bool
}

// Owner reports whether c is the owner.
func (c Caller) Owner() bool { return c.User == "" }

// Sees reports whether c may see session s: the owner every one, a user
// their own, an admin their tenant's.
func (c Caller) Sees(s *session.Session) bool {
	return c.Owner() || s.User == c.User || c.Admin && c.Tenant != "" && s.Tenant == c.Tenant
}

// callerKey is the context key of a request's Caller.
type callerKey struct{}

// CallerFrom returns the caller of the request ctx belongs to (and of
// the turn it started), the owner when none was set.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}
