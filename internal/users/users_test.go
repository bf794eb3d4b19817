package users

import (
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
)

func directory() *Directory {
	return New(config.Config{
		Tenants: map[string]config.Tenant{
			"acme":   {Toolsets: []string{"web", "files"}, Knowledge: []string{"acme-docs"}, Model: "m-acme", Budget: config.Budget{TokensPerDay: 1000}, Tools: []string{"web_search", "read_file"}, ApprovalMode: "smart"},
			"globex": {},
		},
		Users: map[string]config.User{
			"ana":  {Tenant: "acme", Role: "admin", Identities: map[string]string{"telegram": "111", "email": "Ana@Acme.example"}, APIKeySHA256: config.HashAPIKey("sk-ana")},
			"abe":  {Tenant: "acme", Toolsets: []string{"files", "terminal"}, Budget: config.Budget{CostPerDay: 2}, Tools: []string{"read_file", "terminal"}, ApprovalMode: "manual"},
			"val":  {Tenant: "acme", Role: "viewer", Identities: map[string]string{"telegram": "333"}},
			"bob":  {Tenant: "globex", Role: "admin", Identities: map[string]string{"telegram": "222"}},
			"solo": {},
		},
	})
}

// TestResolve: identities and keys find their user; email compares
// without case; anything else, or another platform's id, finds nobody.
func TestResolve(t *testing.T) {
	d := directory()
	for _, tc := range []struct {
		platform, id string
		want         string
	}{
		{"telegram", "111", "ana"},
		{"email", "ana@acme.EXAMPLE", "ana"},
		{"telegram", "222", "bob"},
		{"slack", "111", ""},
		{"telegram", "1111", ""},
		{"telegram", "", ""},
	} {
		c, ok := d.ByIdentity(tc.platform, tc.id)
		if c.User != tc.want || ok != (tc.want != "") {
			t.Errorf("ByIdentity(%s, %q) = %+v %v, want %q", tc.platform, tc.id, c, ok, tc.want)
		}
	}
	if c, ok := d.ByKey("sk-ana"); !ok || c != (Caller{User: "ana", Tenant: "acme", Role: "admin"}) {
		t.Errorf("ByKey = %+v %v", c, ok)
	}
	for _, k := range []string{"", "sk-an", "SK-ANA", config.HashAPIKey("sk-ana")} {
		if c, ok := d.ByKey(k); ok {
			t.Errorf("ByKey(%q) = %+v; a key's hash or a near miss must not pass for it", k, c)
		}
	}
	if (&Directory{}).Enabled() || (*Directory)(nil).Enabled() {
		t.Error("an empty directory is enabled")
	}
}

// TestMayApprove: a viewer approves nothing, not even their own; an
// admin approves their tenant's users only; a member only their own.
func TestMayApprove(t *testing.T) {
	d := directory()
	get := func(id string) Caller { c, _ := d.Get(id); return c }
	for _, tc := range []struct {
		approver, requester string
		want                bool
	}{
		{"abe", "abe", true},
		{"val", "val", false},
		{"ana", "val", true},
		{"ana", "abe", true},
		{"abe", "ana", false},
		{"bob", "abe", false},
		{"ana", "bob", false},
		{"ana", "", false},
	} {
		if got := d.MayApprove(get(tc.approver), get(tc.requester)); got != tc.want {
			t.Errorf("MayApprove(%s, %s) = %v", tc.approver, tc.requester, got)
		}
	}
	if !d.MayApprove(Caller{}, get("abe")) {
		t.Error("the local owner cannot approve")
	}
}

// TestLimits: a user's limits are their tenant's narrowed by theirs,
// never widened; budgets of both apply.
func TestLimits(t *testing.T) {
	d := directory()
	get := func(id string) Caller { c, _ := d.Get(id); return c }
	abe := d.Limits(get("abe"))
	if !slices.Equal(abe.Toolsets, []string{"files"}) || abe.Model != "m-acme" || !slices.Equal(abe.Knowledge, []string{"acme-docs"}) {
		t.Errorf("abe = %+v: want files only (terminal is not acme's), acme's model and knowledge", abe)
	}
	if !slices.Equal(abe.Tools, []string{"read_file"}) || abe.ApprovalMode != "manual" || d.Limits(get("ana")).ApprovalMode != "smart" {
		t.Errorf("abe = %+v: want read_file alone (terminal is not acme's) and abe's own approval mode", abe)
	}
	if len(abe.Budgets) != 2 || abe.Budgets[0].User != "abe" || abe.Budgets[0].CostPerDay != 2 || abe.Budgets[1].Tenant != "acme" || abe.Budgets[1].Key != "tenants.acme.budget" {
		t.Errorf("abe's budgets = %+v", abe.Budgets)
	}
	// Neither solo nor a tenant names toolsets: solo gets those that
	// reach no further than their own things.
	if l := d.Limits(get("solo")); !slices.Equal(l.Toolsets, DefaultToolsets()) || l.Budgets != nil || slices.Contains(l.Toolsets, "terminal") {
		t.Errorf("solo = %+v, want the default toolsets and no budget", l)
	}
	if l := d.Limits(get("bob")); slices.Contains(l.Toolsets, "terminal") || slices.Contains(l.Toolsets, "file") || slices.Contains(l.Toolsets, "cron") {
		t.Errorf("bob (globex names no toolsets) = %+v, reaches the host", l)
	}
	if l := d.Limits(get("bob")); l.Knowledge == nil || len(l.Knowledge) != 0 {
		t.Errorf("bob (globex names no knowledge bases) may search %v, want none", l.Knowledge)
	}
	if l := d.Limits(Caller{}); l.Toolsets != nil || l.Model != "" {
		t.Errorf("owner = %+v", l)
	}
}
