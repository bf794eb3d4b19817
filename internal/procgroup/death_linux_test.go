package procgroup_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
)

// parentEnv makes the test binary act as a parent that starts a guarded
// script, prints the guard's pid and waits to be killed.
const parentEnv = "HERMES_PROCGROUP_TEST_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(parentEnv) != "" {
		cmd := exec.Command("sh", "-c", procgroup.Guard("sleep 300 & sleep 300 & echo up; wait"))
		procgroup.NewSession(cmd)
		cmd.Stdout = os.Stdout
		done, err := procgroup.Start(cmd)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		<-done
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A process started with Start dies with its parent, and so does
// everything in its group, however the parent dies: here by SIGKILL,
// which leaves the parent no chance to clean up.
func TestParentDeathKillsTheGroup(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), parentEnv+"=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	parent.Stdout = w
	err = parent.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The parent prints the guard's pid as the script prints "up", on
	// the same pipe: either may come first.
	br := bufio.NewReader(r)
	guard, up := 0, false
	for range 2 {
		line, err := br.ReadString('\n')
		if line == "up\n" {
			up = true
		} else if pid, perr := strconv.Atoi(strings.TrimSpace(line)); err == nil && perr == nil {
			guard = pid
		} else {
			t.Fatalf("read %q: %v", line, err)
		}
	}
	if !up || guard == 0 {
		t.Fatalf("the parent and the script said: guard %d, up %v", guard, up)
	}
	members := procgrouptest.Members(t, guard)
	if len(members) < 4 {
		t.Fatalf("group %d has %v, want the guard, the script and two sleeps", guard, members)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	procgrouptest.WaitGone(t, members, 5*time.Second)
}
