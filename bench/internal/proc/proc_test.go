package proc

import (
	"os"
	"testing"
)

// The test process's own figures are read, and hang together.
func TestReadsItself(t *testing.T) {
	m, err := ReadMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.Anon <= 0 || m.File <= 0 || m.Anon+m.File > m.RSS+0.01 {
		t.Errorf("memory %+v: want each part positive and anon + file within VmRSS", m)
	}
	if _, err := CPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	if _, err := ReadMemory(-1); err == nil {
		t.Error("a process that does not exist was read")
	}
}
