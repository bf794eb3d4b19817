package config

import (
	"fmt"
	"time"
)

// Delegation is the delegation section: the limits of the child agents
// delegate_task starts, so that a turn handing work out cannot spawn
// without end, run forever, or act where nobody approves.
type Delegation struct {
	// MaxIterations is each child's iteration budget (50).
	MaxIterations int `yaml:"max_iterations"`
	// MaxConcurrentChildren bounds the children of one call running at
	// once (3); one call takes at most three times as many tasks.
	MaxConcurrentChildren int `yaml:"max_concurrent_children"`
	// MaxSpawnDepth is how many levels of children there may be (1):
	// with 1 children cannot delegate; orchestrator children of a deeper
	// limit can.
	MaxSpawnDepth int `yaml:"max_spawn_depth"`
	// ChildTimeout stops a child that runs longer (10m), with what it
	// had written.
	ChildTimeout time.Duration `yaml:"child_timeout"`
	// ChildTimeoutSeconds is Hermes Agent's name for ChildTimeout, in
	// seconds; set (above 0), it is the child timeout.
	ChildTimeoutSeconds int `yaml:"child_timeout_seconds"`
	// IdleTimeout stops a child that shows no progress (no model output,
	// no tool call) for this long (3m).
	IdleTimeout time.Duration `yaml:"child_idle_timeout"`
	// Provider and Model, when set, are what children call instead of
	// the main model.
	Provider string `yaml:"provider"`
	Model    string `yaml:"model"`
	// Approvals is who decides a child's dangerous commands: deny (the
	// default: nobody watches a child, so they are refused) or parent
	// (whoever approves the parent's).
	Approvals string `yaml:"approvals"`
}

// The values of delegation.approvals.
const (
	DelegationDeny   = "deny"
	DelegationParent = "parent"
)

// defaultDelegation is the delegation section before the configuration
// is read.
func defaultDelegation() Delegation {
	return Delegation{MaxIterations: 50, MaxConcurrentChildren: 3, MaxSpawnDepth: 1,
		ChildTimeout: 10 * time.Minute, IdleTimeout: 3 * time.Minute, Approvals: DelegationDeny}
}

// validateDelegation checks the delegation section's limits, provider and
// approvals.
func validateDelegation(c *Config, where func(key string) string) []error {
	d := &c.Delegation
	var errs []error
	atLeast := func(key string, v, minimum int, unit string) {
		if v < minimum {
			errs = append(errs, badValue(where(key), key, fmt.Sprint(v), fmt.Sprintf("is not accepted; use a number of %s of %d or more", unit, minimum)))
		}
	}
	atLeast("delegation.max_iterations", d.MaxIterations, 1, "iterations")
	atLeast("delegation.max_concurrent_children", d.MaxConcurrentChildren, 1, "children")
	atLeast("delegation.max_spawn_depth", d.MaxSpawnDepth, 1, "levels")
	for _, kv := range []struct {
		key string
		v   time.Duration
	}{{"delegation.child_timeout", d.ChildTimeout}, {"delegation.child_idle_timeout", d.IdleTimeout}} {
		if kv.v < time.Second {
			errs = append(errs, badValue(where(kv.key), kv.key, kv.v.String(), "is not accepted; use a duration of 1s or more, like 10m"))
		}
	}
	if p := d.Provider; p != "" && (isAuto(p) || !c.knownProvider(p)) {
		errs = append(errs, badValue(where("delegation.provider"), "delegation.provider", p,
			"is not accepted; leave it empty for the main provider, or use one of "+providerNames()+", or a name defined under providers"))
	}
	if d.Approvals != DelegationDeny && d.Approvals != DelegationParent {
		errs = append(errs, badValue(where("delegation.approvals"), "delegation.approvals", d.Approvals,
			"is not accepted; use deny (children's dangerous commands are refused) or parent (whoever approves the parent's decides)"))
	}
	return errs
}
