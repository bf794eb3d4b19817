package config

import (
	"strings"
	"testing"
)

const usersYAML = `tenants:
  acme:
    toolsets: [web, files]
    knowledge: [acme-docs]
    budget: {tokens_per_day: 100000}
  globex: {}
users:
  ana:
    tenant: acme
    role: admin
    identities: {telegram: "111", email: Ana@Acme.example}
    api_key_sha256: 0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0
  bob:
    tenant: globex
    identities: {telegram: "222"}
    budget: {cost_per_day: 1.5}
`

// TestUsersLoad: tenants and users load with their limits, and a user
// without a role is a member.
func TestUsersLoad(t *testing.T) {
	l, _, err := loadYAML(t, usersYAML)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	ana, bob := c.Users["ana"], c.Users["bob"]
	if ana.Tenant != "acme" || ana.RoleOrDefault() != RoleAdmin || ana.Identities["telegram"] != "111" || bob.RoleOrDefault() != RoleMember {
		t.Errorf("users = %+v", c.Users)
	}
	if a := c.Tenants["acme"]; a.Budget.TokensPerDay != 100000 || len(a.Toolsets) != 2 || a.Knowledge[0] != "acme-docs" || bob.Budget.CostPerDay != 1.5 {
		t.Errorf("tenants = %+v, bob = %+v", c.Tenants, bob)
	}
	if got := HashAPIKey("sk-x"); len(got) != 64 || got != HashAPIKey("sk-x") || got == HashAPIKey("sk-y") {
		t.Errorf("HashAPIKey = %q", got)
	}
}

// TestUsersRejected: every malformed tenant or user names its key, the
// value and what is accepted; an identity or a key claimed by two users
// is refused, since a message from it could not say whose it is.
func TestUsersRejected(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"tenants:\n  Acme Inc: {}\n", `tenants: "Acme Inc" is not accepted as a tenant name`},
		{"users:\n  ../root: {}\n", `users: "../root" is not accepted as a user id`},
		{"tenants:\n  acme: {}\nusers:\n  ana: {}\n", `users.ana.tenant: "" is not accepted; name the user's tenant: use one of acme`},
		{"tenants:\n  acme: {}\nusers:\n  ana: {tenant: globex}\n", `users.ana.tenant: "globex" is not accepted; use one of acme`},
		{"users:\n  ana: {tenant: acme}\n", `users.ana.tenant: "acme" is not accepted; no tenants are configured`},
		{"users:\n  ana: {role: root}\n", `users.ana.role: "root" is not accepted; use admin, member or viewer`},
		{"users:\n  ana: {identities: {myspace: x}}\n", `users.ana.identities: "myspace" is not accepted as a platform; use telegram`},
		{"users:\n  ana: {identities: {telegram: \" \"}}\n", `users.ana.identities.telegram: " " is not accepted; give the user's id on telegram`},
		{"users:\n  ana: {identities: {telegram: \"1\"}}\n  bob: {identities: {telegram: \"1\"}}\n", `users.bob.identities.telegram: "1" is not accepted: it is users.ana's already`},
		{"users:\n  ana: {identities: {email: a@x.example}}\n  bob: {identities: {email: A@X.example}}\n", `users.bob.identities.email: "A@X.example" is not accepted: it is users.ana's already`},
		{"users:\n  ana: {api_key_sha256: sk-live-123}\n", `users.ana.api_key_sha256: "sk-live-123" is not accepted; give 64 hex digits`},
		{"users:\n  ana: {budget: {tokens_per_day: -1}}\n", `users.ana.budget.tokens_per_day: "-1" is not accepted`},
		{"tenants:\n  acme: {budget: {cost_per_day: -2}}\n", `tenants.acme.budget.cost_per_day: "-2" is not accepted`},
		{"tenants:\n  acme: {knowledge: []}\n", `tenants.acme.knowledge: "[]" is not accepted`},
		{"tenants:\n  acme: {model: \"a b\"}\n", `tenants.acme.model: "a b" is not accepted as a model name`},
		{"tenants:\n  acme: {approval_mode: yolo}\n", `tenants.acme.approval_mode: "yolo" is not accepted; use manual, smart or off`},
		{"users:\n  ana: {approval_mode: never}\n", `users.ana.approval_mode: "never" is not accepted`},
	} {
		_, _, err := loadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
	two := "users:\n  ana: {api_key_sha256: " + HashAPIKey("k") + "}\n  bob: {api_key_sha256: " + strings.ToUpper(HashAPIKey("k")) + "}\n"
	if _, _, err := loadYAML(t, two); err == nil || !strings.Contains(err.Error(), "it is users.ana's key already") {
		t.Errorf("one key for two users: %v", err)
	}
}
