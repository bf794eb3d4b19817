package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Tenant is one entry of tenants: a group of users (a team, a customer)
// that share limits and see none of another tenant's data. Whatever is
// left empty is hermes's default.
type Tenant struct {
	// Description says in a line who the tenant is.
	Description string `yaml:"description"`
	// Toolsets, when set, are the most the tenant's turns are offered:
	// hermes's selection is cut down to these, never widened.
	Toolsets []string `yaml:"toolsets"`
	// Knowledge, when set, are the knowledge bases its users may search.
	Knowledge []string `yaml:"knowledge"`
	// Skills, when set, are the skills its users' prompts list.
	Skills []string `yaml:"skills"`
	// Tools, when set, are the only tools (by name, within the toolsets)
	// its users' turns are offered.
	Tools []string `yaml:"tools"`
	// ApprovalMode replaces approvals.mode for its users' dangerous
	// commands: manual, smart or off.
	ApprovalMode string `yaml:"approval_mode"`
	// Model is the model its users' turns call instead of the main one.
	Model string `yaml:"model"`
	// Budget caps what the whole tenant spends in a UTC day.
	Budget Budget `yaml:"budget"`
}

// Budget caps a day's spending; zero fields do not cap. Past either,
// new turns are refused with a message saying which cap and when it
// resets (midnight UTC).
type Budget struct {
	TokensPerDay int64   `yaml:"tokens_per_day"`
	CostPerDay   float64 `yaml:"cost_per_day"`
}

// Set reports whether the budget caps anything.
func (b Budget) Set() bool { return b.TokensPerDay > 0 || b.CostPerDay > 0 }

// The roles of a user.
const (
	// RoleAdmin may approve their tenant's users' commands and sees the
	// tenant's sessions and costs.
	RoleAdmin = "admin"
	// RoleMember runs turns and approves their own commands.
	RoleMember = "member"
	// RoleViewer runs turns but approves nothing: their dangerous
	// commands are denied unless an admin approves.
	RoleViewer = "viewer"
)

// User is one entry of users: a person known by their identities on
// every platform, so they are the same user on Telegram, Slack, by email
// and through the API.
type User struct {
	// Tenant names the user's tenant (tenants:); required once tenants
	// are configured.
	Tenant string `yaml:"tenant"`
	// Role is admin, member (the default) or viewer.
	Role string `yaml:"role"`
	// Identities are the user's ids on each platform: telegram, slack,
	// discord, matrix, wecom, feishu, dingtalk (the platform's user id)
	// and email (an address).
	Identities map[string]string `yaml:"identities"`
	// APIKeySHA256 is the SHA-256, in hex, of the user's API key: the
	// key itself is never stored (hermes users add --api-key makes one
	// and prints it once).
	APIKeySHA256 string `yaml:"api_key_sha256"`
	// Toolsets, Knowledge, Skills, Tools, ApprovalMode and Model narrow
	// or replace the tenant's for this user.
	Toolsets     []string `yaml:"toolsets"`
	Knowledge    []string `yaml:"knowledge"`
	Skills       []string `yaml:"skills"`
	Tools        []string `yaml:"tools"`
	ApprovalMode string   `yaml:"approval_mode"`
	Model        string   `yaml:"model"`
	// Budget caps what this user spends in a UTC day, within the
	// tenant's.
	Budget Budget `yaml:"budget"`
}

// RoleOrDefault is the user's role, member when none is set.
func (u User) RoleOrDefault() string {
	if u.Role == "" {
		return RoleMember
	}
	return u.Role
}

// HashAPIKey is the form an API key is stored in: its SHA-256 in hex.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// UserNames returns the configured users' ids, sorted.
func (c *Config) UserNames() []string { return slices.Sorted(maps.Keys(c.Users)) }

// identityPlatforms are the platforms a user may have an identity on.
func identityPlatforms() []string {
	return []string{"telegram", "slack", "discord", "matrix", "wecom", "feishu", "dingtalk", "email"}
}

// validateUsers checks tenants and users: names, roles, that every user
// names a known tenant, identities on known platforms claimed by one
// user each, key hashes of the right form used once.
func validateUsers(c *Config, where func(key string) string) []error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(c.Tenants)) {
		t, key := c.Tenants[name], "tenants."+name
		if !agentName.Get().MatchString(name) {
			errs = append(errs, badValue(where("tenants"), "tenants", name,
				"is not accepted as a tenant name; use up to 64 lowercase letters, digits, \"-\" and \"_\", starting with a letter or digit"))
		}
		errs = append(errs, validateLimits(key, t.Toolsets, t.Knowledge, t.Model, t.Budget, where)...)
		errs = append(errs, validateApprovalMode(key, t.ApprovalMode, where)...)
	}
	owner := map[string]string{} // "platform:id" or "key:hash" → user
	for _, id := range c.UserNames() {
		u, key := c.Users[id], "users."+id
		if !agentName.Get().MatchString(id) {
			errs = append(errs, badValue(where("users"), "users", id,
				"is not accepted as a user id; use up to 64 lowercase letters, digits, \"-\" and \"_\", starting with a letter or digit"))
			continue
		}
		switch {
		case u.Tenant == "" && len(c.Tenants) > 0:
			errs = append(errs, badValue(where(key+".tenant"), key+".tenant", u.Tenant, "is not accepted; name the user's tenant: "+tenantList(c)))
		case u.Tenant != "":
			if _, ok := c.Tenants[u.Tenant]; !ok {
				errs = append(errs, badValue(where(key+".tenant"), key+".tenant", u.Tenant, "is not accepted; "+tenantList(c)))
			}
		}
		if r := u.Role; r != "" && r != RoleAdmin && r != RoleMember && r != RoleViewer {
			errs = append(errs, badValue(where(key+".role"), key+".role", r, "is not accepted; use admin, member or viewer"))
		}
		for _, p := range slices.Sorted(maps.Keys(u.Identities)) {
			k, v := key+".identities."+p, strings.TrimSpace(u.Identities[p])
			switch {
			case !slices.Contains(identityPlatforms(), p):
				errs = append(errs, badValue(where(key+".identities"), key+".identities", p, "is not accepted as a platform; use "+strings.Join(identityPlatforms(), ", ")))
			case v == "":
				errs = append(errs, badValue(where(k), k, u.Identities[p], "is not accepted; give the user's id on "+p))
			default:
				slot := p + ":" + identityKey(p, v)
				if other, taken := owner[slot]; taken {
					errs = append(errs, badValue(where(k), k, v, "is not accepted: it is users."+other+"'s already; one identity is one user"))
				}
				owner[slot] = id
			}
		}
		if h := u.APIKeySHA256; h != "" {
			if b, err := hex.DecodeString(h); err != nil || len(b) != sha256.Size {
				errs = append(errs, badValue(where(key+".api_key_sha256"), key+".api_key_sha256", h, "is not accepted; give 64 hex digits, as hermes users add --api-key writes"))
			} else if other, taken := owner["key:"+strings.ToLower(h)]; taken {
				errs = append(errs, badValue(where(key+".api_key_sha256"), key+".api_key_sha256", h, "is not accepted: it is users."+other+"'s key already"))
			} else {
				owner["key:"+strings.ToLower(h)] = id
			}
		}
		errs = append(errs, validateLimits(key, u.Toolsets, u.Knowledge, u.Model, u.Budget, where)...)
		errs = append(errs, validateApprovalMode(key, u.ApprovalMode, where)...)
	}
	return errs
}

// identityKey is how an identity on platform p compares: email
// addresses without regard to ASCII case, every other id exactly.
func identityKey(p, id string) string {
	if p == "email" {
		return strings.ToLower(id)
	}
	return id
}

// validateLimits checks a tenant's or a user's toolsets, knowledge,
// model and budget.
func validateLimits(key string, toolsets, knowledge []string, model string, b Budget, where func(string) string) []error {
	var errs []error
	for i, ts := range toolsets {
		if strings.TrimSpace(ts) == "" {
			k := fmt.Sprintf("%s.toolsets[%d]", key, i)
			errs = append(errs, badValue(where(k), k, ts, "is not accepted; name a toolset (hermes tools list shows them)"))
		}
	}
	if knowledge != nil {
		errs = append(errs, validateKnowledge(knowledge, key+".knowledge", where)...)
	}
	if model != "" && !modelName.Get().MatchString(model) {
		errs = append(errs, badValue(where(key+".model"), key+".model", model, "is not accepted as a model name; give a provider's model id, like gpt-4o-mini"))
	}
	if b.TokensPerDay < 0 {
		errs = append(errs, badValue(where(key+".budget.tokens_per_day"), key+".budget.tokens_per_day", fmt.Sprint(b.TokensPerDay), "is not accepted; give a number of tokens ≥ 0 (0: no cap)"))
	}
	if b.CostPerDay < 0 {
		errs = append(errs, badValue(where(key+".budget.cost_per_day"), key+".budget.cost_per_day", fmt.Sprint(b.CostPerDay), "is not accepted; give US dollars ≥ 0 (0: no cap)"))
	}
	return errs
}

// validateApprovalMode checks a tenant's or a user's approval_mode.
func validateApprovalMode(key, mode string, where func(string) string) []error {
	switch mode {
	case "", "manual", "smart", "off":
		return nil
	}
	return []error{badValue(where(key+".approval_mode"), key+".approval_mode", mode, "is not accepted; use manual, smart or off")}
}

// tenantList says which tenants there are, for errors.
func tenantList(c *Config) string {
	if len(c.Tenants) == 0 {
		return "no tenants are configured; add them under tenants:"
	}
	return "use one of " + strings.Join(slices.Sorted(maps.Keys(c.Tenants)), ", ")
}
