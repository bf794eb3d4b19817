// Package users tells who a message or a request comes from, among the
// users of config.yaml, and what that user may do: the tenant they
// belong to, their role, and the limits of both.
package users

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
)

// Caller is who a turn runs for. The zero value is the local owner: the
// person at the terminal, or a front with no users configured, limited
// only by config.yaml's defaults.
type Caller struct {
	User   string
	Tenant string
	Role   string
}

// Owner reports whether c is the local owner.
func (c Caller) Owner() bool { return c.User == "" }

// Directory is the users and tenants of a configuration, indexed by
// identity and key. It is read-only once built, so fronts share it.
type Directory struct {
	users   map[string]config.User
	tenants map[string]config.Tenant
	ids     map[string]string // platform + "\x00" + id → user
	keys    map[string]string // hex SHA-256 of a key → user
}

// New indexes c's users. c has been validated: no identity or key
// belongs to two users.
func New(c config.Config) *Directory {
	d := &Directory{users: c.Users, tenants: c.Tenants, ids: map[string]string{}, keys: map[string]string{}}
	for id, u := range c.Users {
		for p, v := range u.Identities {
			d.ids[identity(p, v)] = id
		}
		if u.APIKeySHA256 != "" {
			d.keys[strings.ToLower(u.APIKeySHA256)] = id
		}
	}
	return d
}

// Enabled reports whether any user is configured: fronts then serve only
// the users they recognize.
func (d *Directory) Enabled() bool { return d != nil && len(d.users) > 0 }

// identity is the index key of id on platform: email addresses compare
// without regard to ASCII case, as the gateway's allowlists do.
func identity(platform, id string) string {
	id = strings.TrimSpace(id)
	if platform == "email" {
		id = strings.ToLower(id)
	}
	return platform + "\x00" + id
}

// ByIdentity returns the user whose identity on platform is id.
func (d *Directory) ByIdentity(platform, id string) (Caller, bool) {
	if !d.Enabled() || id == "" {
		return Caller{}, false
	}
	u, ok := d.ids[identity(platform, id)]
	if !ok {
		return Caller{}, false
	}
	return d.Get(u)
}

// ByKey returns the user whose API key is key. Keys are compared by
// their SHA-256: the configuration holds no key, and a lookup by hash
// tells a timing observer nothing about the key's bytes.
func (d *Directory) ByKey(key string) (Caller, bool) {
	if !d.Enabled() || key == "" {
		return Caller{}, false
	}
	sum := sha256.Sum256([]byte(key))
	u, ok := d.keys[hex.EncodeToString(sum[:])]
	if !ok {
		return Caller{}, false
	}
	return d.Get(u)
}

// Get returns user id as a Caller.
func (d *Directory) Get(id string) (Caller, bool) {
	if d == nil {
		return Caller{}, false
	}
	u, ok := d.users[id]
	if !ok {
		return Caller{}, false
	}
	return Caller{User: id, Tenant: u.Tenant, Role: u.RoleOrDefault()}, true
}

// Users returns the users' ids, sorted.
func (d *Directory) Users() []string {
	if d == nil {
		return nil
	}
	var out []string
	for id := range d.users {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// MayApprove reports whether approver may approve a dangerous command of
// a turn run for requester: the requester themselves unless a viewer,
// an admin of the requester's tenant, or the local owner. Nobody else,
// whatever chat they share.
func (d *Directory) MayApprove(approver, requester Caller) bool {
	switch {
	case approver.Owner():
		return true
	case approver.Role == config.RoleViewer:
		return false
	case approver.User == requester.User:
		return true
	default:
		return approver.Role == config.RoleAdmin && approver.Tenant == requester.Tenant && !requester.Owner()
	}
}
