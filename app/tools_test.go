package app

import (
	"testing"

	"github.com/hermes-go/hermes/config"
)

// Only terminal.backend ssh makes a backend and a remote filesystem; the
// local terminal and the file tools work on this machine.
func TestSSHBackendOnlyForSSH(t *testing.T) {
	if b, fsys := sshBackend(config.Terminal{}); b != nil || fsys != nil {
		t.Fatalf("sshBackend of a local terminal = %v, %v, want nil, nil", b, fsys)
	}
	b, fsys := sshBackend(config.Terminal{Backend: "ssh", SSH: config.SSH{Host: "h"}})
	if b == nil || fsys == nil {
		t.Fatalf("sshBackend of an ssh terminal = %v, %v, want a backend and its filesystem", b, fsys)
	}
}
