//go:build unix

package terminal

import (
	"os"
	"os/exec"

	"github.com/hermes-go/hermes/internal/procgroup"
)

// spawn starts command in dir in the background, the way run starts a
// foreground one (same wrapper and guard, environment, and a session of
// its own so kill reaches everything it starts and it dies with hermes),
// except that stdin is a pipe kept open for the process tool's write, and
// the directory report on fd 3 goes to /dev/null: a background command
// does not move the session.
// The returned process is not yet registered and nothing reaps it; the
// caller starts reap.
func (t *Terminal) spawn(command, dir string) (Spawned, error) {
	var toClose []*os.File
	defer func() {
		for _, f := range toClose {
			f.Close()
		}
	}()
	outR, outW, err := os.Pipe()
	if err != nil {
		return Spawned{}, err
	}
	toClose = append(toClose, outW)
	inR, inW, err := os.Pipe()
	if err != nil {
		outR.Close()
		return Spawned{}, err
	}
	toClose = append(toClose, inR)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		outR.Close()
		inW.Close()
		return Spawned{}, err
	}
	toClose = append(toClose, null)

	cmd := exec.Command(t.shellPath, "-c", procgroup.Guard(wrapCommand(command)))
	cmd.Dir = dir
	cmd.Env = t.Environ()
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = outW
	cmd.ExtraFiles = []*os.File{null}
	procgroup.NewSession(cmd)
	done, err := procgroup.Start(cmd)
	if err != nil {
		outR.Close()
		inW.Close()
		return Spawned{}, err
	}
	return Spawned{
		PID:    cmd.Process.Pid,
		Cwd:    dir,
		Output: outR,
		Stdin:  inW,
		Wait: func() int {
			<-done
			return exitCode(cmd.ProcessState)
		},
	}, nil
}

func termGroup(pid int) { procgroup.Term(pid) }
func killGroup(pid int) { procgroup.Kill(pid) }
