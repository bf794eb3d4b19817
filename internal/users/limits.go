package users

import (
	"cmp"
	"slices"

	"github.com/hermes-go/hermes/internal/config"
)

// Limits are what a caller's turns may use: their tenant's limits
// narrowed by their own. Nil slices do not limit.
type Limits struct {
	// Toolsets, when set, are the most a turn is offered.
	Toolsets []string
	// Knowledge are the knowledge bases kb_search may read; empty for a
	// user whose tenant names none.
	Knowledge []string
	// Skills, when set, are the skills the prompt's index lists.
	Skills []string
	// Tools, when set, are the only tools offered, by name.
	Tools []string
	// ApprovalMode replaces approvals.mode ("" keeps it): the user's
	// when set, else the tenant's.
	ApprovalMode string
	// Model replaces the main model ("" keeps it).
	Model string
	// Budgets are the day's caps that apply, the user's first.
	Budgets []Budget
}

// Budget is one day's cap and whose spending it counts.
type Budget struct {
	config.Budget
	// User or Tenant is whose usage counts (one is set).
	User, Tenant string
	// Key is where it is configured, for messages
	// ("users.ana.budget").
	Key string
}

// DefaultToolsets are a user's toolsets when neither their tenant nor
// they name any: those that reach no further than the user's own things
// and the web. terminal, file, code_execution, browser and vision (it
// opens local image paths) reach the host, and state.db with every
// user's data; cron schedules jobs that run as the owner; general holds
// the operator's declared tools and their credentials: a tenant gets
// them only by naming them.
func DefaultToolsets() []string {
	return []string{"web", "knowledge", "memory", "session_search", "todo", "skills", "delegation"}
}

// Limits returns c's limits. The owner has none.
func (d *Directory) Limits(c Caller) Limits {
	if c.Owner() || d == nil {
		return Limits{}
	}
	u, t := d.users[c.User], d.tenants[c.Tenant]
	tenantSets := t.Toolsets
	if tenantSets == nil {
		tenantSets = DefaultToolsets()
	}
	l := Limits{
		Toolsets:     narrow(tenantSets, u.Toolsets),
		Knowledge:    narrow(t.Knowledge, u.Knowledge),
		Skills:       narrow(t.Skills, u.Skills),
		Tools:        narrow(t.Tools, u.Tools),
		ApprovalMode: cmp.Or(u.ApprovalMode, t.ApprovalMode),
		Model:        u.Model,
	}
	if l.Model == "" {
		l.Model = t.Model
	}
	if l.Knowledge == nil {
		// A tenant sees the knowledge bases it is given, and none
		// unless it is given some: another tenant's may be there.
		l.Knowledge = []string{}
	}
	if u.Budget.Set() {
		l.Budgets = append(l.Budgets, Budget{Budget: u.Budget, User: c.User, Key: "users." + c.User + ".budget"})
	}
	if t.Budget.Set() {
		l.Budgets = append(l.Budgets, Budget{Budget: t.Budget, Tenant: c.Tenant, Key: "tenants." + c.Tenant + ".budget"})
	}
	return l
}

// narrow is the user's list within the tenant's: their intersection when
// both are set, else whichever is. A user cannot widen their tenant's.
func narrow(tenant, user []string) []string {
	switch {
	case tenant == nil:
		return user
	case user == nil:
		return tenant
	}
	out := []string{}
	for _, x := range user {
		if slices.Contains(tenant, x) {
			out = append(out, x)
		}
	}
	return out
}
