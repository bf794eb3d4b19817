package holder

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// A process of this host that ended is gone; this process, one still
// running, one of another host and a name of another form are not.
func TestGone(t *testing.T) {
	host, _ := os.Hostname()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	running := exec.Command("sleep", "30")
	if err := running.Start(); err != nil {
		t.Skip("no sleep to run:", err)
	}
	defer func() { running.Process.Kill(); running.Wait() }()
	for _, tc := range []struct {
		holder string
		gone   bool
	}{
		{fmt.Sprintf("%s/%d", host, ended.Process.Pid), true},
		{This(), false},
		{fmt.Sprintf("%s/%d", host, running.Process.Pid), false},
		{fmt.Sprintf("elsewhere.example/%d", ended.Process.Pid), false},
		{"host-123-abcd", false},
		{host + "/x", false},
		{"", false},
	} {
		if got := Gone(tc.holder); got != tc.gone {
			t.Errorf("Gone(%q) = %v, want %v", tc.holder, got, tc.gone)
		}
	}
}
