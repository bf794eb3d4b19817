package config

import (
	"strings"
	"testing"
	"time"
)

// delegation: the defaults, a section read, and every wrong value
// refused with its key and what is accepted.
func TestDelegationSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": ""}, nil, nil)
	if d := l.Config.Delegation; d.MaxIterations != 50 || d.MaxConcurrentChildren != 3 || d.MaxSpawnDepth != 1 ||
		d.ChildTimeout != 10*time.Minute || d.IdleTimeout != 3*time.Minute || d.Approvals != DelegationDeny {
		t.Errorf("defaults = %+v", d)
	}
	l = mustLoad(t, map[string]string{"config.yaml": "delegation:\n  max_spawn_depth: 2\n  child_timeout: 90s\n  provider: openrouter\n  model: small\n  approvals: parent\n"}, nil, nil)
	if d := l.Config.Delegation; d.MaxSpawnDepth != 2 || d.ChildTimeout != 90*time.Second || d.Provider != "openrouter" || d.Model != "small" || d.Approvals != DelegationParent {
		t.Errorf("delegation = %+v", d)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"delegation: {max_iterations: 0}\n", "delegation.max_iterations: \"0\" is not accepted; use a number of iterations of 1 or more"},
		{"delegation: {max_concurrent_children: -1}\n", "delegation.max_concurrent_children: \"-1\" is not accepted"},
		{"delegation: {max_spawn_depth: 0}\n", "delegation.max_spawn_depth: \"0\" is not accepted"},
		{"delegation: {child_timeout: 0s}\n", "delegation.child_timeout: \"0s\" is not accepted; use a duration of 1s or more"},
		{"delegation: {child_idle_timeout: 10ms}\n", "delegation.child_idle_timeout: \"10ms\" is not accepted"},
		{"delegation: {provider: nowhere}\n", "delegation.provider: \"nowhere\" is not accepted"},
		{"delegation: {approvals: allow}\n", "delegation.approvals: \"allow\" is not accepted; use deny"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
