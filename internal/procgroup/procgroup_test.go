//go:build unix

package procgroup_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/procgroup/procgrouptest"
)

// shells are the shells a guard runs in: bash for the terminal, sh for
// job scripts and declared commands.
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Skip("no shell")
	}
	return out
}

// run runs a guarded script in sh with stdin and returns its output and
// exit code.
func run(t *testing.T, sh, script, stdin string) (string, int) {
	t.Helper()
	cmd := exec.Command(sh, "-c", procgroup.Guard(script))
	cmd.Stdin = strings.NewReader(stdin)
	procgroup.NewSession(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done, err := procgroup.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return out.String(), cmd.ProcessState.ExitCode()
}

func TestGuardRunsTheScriptAsItIs(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh, func(t *testing.T) {
			for _, tc := range []struct {
				script, stdin, out string
				code               int
				has                string // the output holds it, when out is not given
			}{
				{script: "echo hi; exit 3", out: "hi\n", code: 3},
				{script: `read -r line; echo "got:$line"`, stdin: "a b\n", out: "got:a b\n"},
				{script: "cat", stdin: "all of it", out: "all of it"},
				// Line numbers are the script's own.
				{script: "echo one\nno-such-program-here", code: 127, has: "2: no-such-program-here"},
				// fd 8, which carries stdin to the script, is closed in it.
				{script: "if (exec <&8) 2>/dev/null; then echo open; else echo closed; fi", out: "closed\n"},
				// A script killed by a signal is reported as the shell would.
				{script: "kill -9 $(exec sh -c 'echo $PPID')", code: 137},
				{script: "(", code: 2},
			} {
				out, code := run(t, sh, tc.script, tc.stdin)
				if code != tc.code || tc.out != "" && out != tc.out || !strings.Contains(out, tc.has) {
					t.Errorf("%q: exit %d, output %q; want %d, %q", tc.script, code, out, tc.code, tc.out)
				}
			}
		})
	}
}

// A signal to the group reaches the program, and the guard outlives it
// to report the program's own exit.
func TestGuardReportsTheProgramsEnd(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh, func(t *testing.T) {
			cmd := exec.Command(sh, "-c", procgroup.Guard(`trap 'echo cleaned up; exit 7' TERM; echo up; sleep 30 & wait`))
			procgroup.NewSession(cmd)
			done, r := startPiped(t, cmd)
			if line, _ := r.ReadString('\n'); line != "up\n" {
				t.Fatalf("first line %q", line)
			}
			members := procgrouptest.Members(t, cmd.Process.Pid)
			procgroup.Term(cmd.Process.Pid)
			rest, _ := r.ReadString(0)
			<-done
			if code := cmd.ProcessState.ExitCode(); code != 7 || rest != "cleaned up\n" {
				t.Errorf("exit %d after %q, want the trap's 7", code, rest)
			}
			procgrouptest.WaitGone(t, members, 5*time.Second)
		})
	}
}

// The death signal makes the guard kill its whole group, the children the
// script started included.
func TestDeathSignalKillsTheGroup(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh, func(t *testing.T) {
			cmd := exec.Command(sh, "-c", procgroup.Guard(`trap '' TERM; sleep 300 & sleep 300 & echo up; wait`))
			procgroup.NewSession(cmd)
			done, r := startPiped(t, cmd)
			if line, _ := r.ReadString('\n'); line != "up\n" {
				t.Fatalf("first line %q", line)
			}
			members := procgrouptest.Members(t, cmd.Process.Pid)
			if len(members) < 4 {
				t.Fatalf("group %d has %v, want the guard, the script and two sleeps", cmd.Process.Pid, members)
			}
			_ = syscall.Kill(cmd.Process.Pid, procgroup.DeathSignal)
			<-done
			procgrouptest.WaitGone(t, members, 5*time.Second)
		})
	}
}

func TestGuardArgv(t *testing.T) {
	argv := []string{"printf", "%s|", "a b", "$HOME", "'q'", "`x`", ""}
	cmd := exec.Command(procgroup.GuardArgv(argv)[0], procgroup.GuardArgv(argv)[1:]...)
	procgroup.NewGroup(cmd)
	var out bytes.Buffer
	cmd.Stdout = &out
	done, err := procgroup.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || out.String() != "a b|$HOME|'q'|`x`||" {
		t.Errorf("output %q, err %v", out.String(), err)
	}

	cmd = exec.Command(procgroup.GuardArgv([]string{"sh", "-c", "read x; exit $x"})[0], procgroup.GuardArgv([]string{"sh", "-c", "read x; exit $x"})[1:]...)
	cmd.Stdin = strings.NewReader("5\n")
	procgroup.NewGroup(cmd)
	done, err = procgroup.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 5 {
		t.Errorf("exit %d, want the program's 5 read from stdin", code)
	}
}

func TestStartFails(t *testing.T) {
	cmd := exec.Command("/no/such/program")
	procgroup.NewSession(cmd)
	if _, err := procgroup.Start(cmd); err == nil {
		t.Fatal("started a program that does not exist")
	}
}

// startPiped starts cmd with its stdout on a pipe the test reads. The
// pipe is the test's own: Start waits for the process at once, which
// would close a pipe of exec.Cmd.StdoutPipe under the reader.
func startPiped(t *testing.T, cmd *exec.Cmd) (<-chan error, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd.Stdout = w
	done, err := procgroup.Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return done, bufio.NewReader(r)
}

// pidLine reads one line holding a pid.
func pidLine(t *testing.T, r *bufio.Reader) int {
	t.Helper()
	line, err := r.ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		t.Fatalf("read %q: %v", line, err)
	}
	return pid
}
