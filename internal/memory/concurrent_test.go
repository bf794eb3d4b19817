package memory

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// bigLimits leave room for every entry the concurrency tests write.
var bigLimits = Limits{Memory: 1 << 20, User: 1 << 20}

// checkAll fails unless target holds every entry of want, each once.
func checkAll(t *testing.T, s *Store, target Target, want []string) {
	t.Helper()
	got := entries(t, s, target)
	count := map[string]int{}
	for _, e := range got {
		count[e]++
	}
	for _, w := range want {
		if count[w] != 1 {
			t.Errorf("entry %q appears %d times, want once", w, count[w])
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s holds %d entries, want %d", target, len(got), len(want))
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	// Two Stores on one directory behave like two processes' Stores: only
	// the file lock keeps them apart.
	stores := []*Store{Open(dir, bigLimits), Open(dir, bigLimits)}
	const writers, each = 6, 15
	var wg sync.WaitGroup
	var want []string
	for w := range writers {
		for i := range each {
			want = append(want, fmt.Sprintf("writer %d entry %d", w, i))
		}
		wg.Go(func() {
			s := stores[w%2]
			for i := range each {
				target := TargetMemory
				if i%3 == 0 {
					target = TargetUser
				}
				if _, err := s.Apply([]Op{{Action: "add", Target: target, Content: fmt.Sprintf("writer %d entry %d", w, i)}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got := append(entries(t, stores[0], TargetMemory), entries(t, stores[0], TargetUser)...)
	if len(got) != len(want) {
		t.Fatalf("%d entries on disk, want %d", len(got), len(want))
	}
	seen := map[string]bool{}
	for _, e := range got {
		seen[e] = true
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("lost %q", w)
		}
	}
}

// TestMain lets the test binary act as a second hermes process writing to
// the same directory (see TestTwoProcessesLoseNothing).
func TestMain(m *testing.M) {
	if dir := os.Getenv("HERMES_MEMORY_TEST_WRITER"); dir != "" {
		os.Exit(writeEntries(dir, os.Getenv("HERMES_MEMORY_TEST_PREFIX")))
	}
	os.Exit(m.Run())
}

const perProcess = 30

func writeEntries(dir, prefix string) int {
	s := Open(dir, bigLimits)
	for i := range perProcess {
		if _, err := s.Apply([]Op{{Action: "add", Target: TargetMemory, Content: prefix + " " + strconv.Itoa(i)}}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestTwoProcessesLoseNothing(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := t.TempDir()
	var want []string
	var cmds []*exec.Cmd
	for _, prefix := range []string{"gateway", "cli"} {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "HERMES_MEMORY_TEST_WRITER="+dir, "HERMES_MEMORY_TEST_PREFIX="+prefix)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		for i := range perProcess {
			want = append(want, prefix+" "+strconv.Itoa(i))
		}
	}
	// This process writes too, at the same time.
	if code := writeEntries(dir, "test"); code != 0 {
		t.Fatal("writing from the test process failed")
	}
	for i := range perProcess {
		want = append(want, "test "+strconv.Itoa(i))
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	checkAll(t, Open(dir, bigLimits), TargetMemory, want)
}
