package terminal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/safety/shell"
)

// startTimeout bounds how long a new shell may take to give its first
// report; one that takes longer is not used, and the call runs in a bash
// of its own instead.
const startTimeout = 10 * time.Second

// pshell is one persistent bash: the shell of one session, which runs
// the session's commands one after another so that variables, functions
// and the directory carry over. It is started in a session and process
// group of its own under a procgroup guard, like a per-call bash, so a
// timeout kills everything it started and it dies with hermes. A pshell
// is used by one call at a time (see shells).
type pshell struct {
	t      *Terminal
	cmd    *exec.Cmd
	pid    int
	exited chan struct{} // closed once the guard exited
	ctl    *os.File      // requests
	// records are the reports; stop ends their reader's sending.
	records chan record
	stop    chan struct{}
	// fifos is a private directory for the named pipes commands write
	// their output to, and fifo the one the next command writes to
	// ("" until made): a pipe is used again as long as no process a
	// command left running holds it.
	fifos string
	fifo  string
	seq   int

	// cwd is the shell's directory as it last said, "" when unknown.
	cwd string
	// base is what the shell held when it started: its variables, and
	// its builtins (enable -a), which must stay the same.
	base                    map[string]declaration
	baseBuiltins, baseTraps string
	// decls and state are what it holds now, as of its last report, and
	// lastVars and lastFuncs the texts they were read from.
	decls               map[string]declaration
	state               shell.State
	lastVars, lastFuncs string
	// gone says why the shell can run no more commands, "" while it can.
	gone string
}

// startShell starts a shell in dir and waits for its first report.
func startShell(t *Terminal, dir string) (*pshell, error) {
	fifos, err := os.MkdirTemp("", "hermes-shell-")
	if err != nil {
		return nil, err
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(fifos)
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(fifos)
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	// The guard runs the shell as a program of its own, so that $$ is the
	// shell, as in any shell, rather than the guard.
	cmd := exec.Command(t.shellPath, "-c", procgroup.Guard("exec "+ansiC(t.shellPath)+" -c "+ansiC(driverScript)))
	cmd.Dir = dir
	cmd.Env = t.Environ()
	cmd.ExtraFiles = []*os.File{ctlR, repW}
	procgroup.NewSession(cmd)
	waited, err := procgroup.Start(cmd)
	ctlR.Close()
	repW.Close()
	if err != nil {
		os.RemoveAll(fifos)
		ctlW.Close()
		repR.Close()
		return nil, err
	}
	p := &pshell{t: t, cmd: cmd, pid: cmd.Process.Pid, exited: make(chan struct{}), ctl: ctlW,
		records: make(chan record, 1), stop: make(chan struct{}), fifos: fifos, cwd: ""}
	go func() {
		<-waited
		close(p.exited)
	}()
	go func() {
		readRecords(repR, p.records, p.stop)
		repR.Close()
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	rep, how := p.exchange(context.Background(), shellCall{fifo: os.DevNull, code: ":"}, timer.C)
	if how != answered {
		p.close()
		return nil, fmt.Errorf("the shell did not start (%s)", how)
	}
	p.base, p.baseBuiltins, p.baseTraps = parseDeclarations(rep.vars), rep.builtins, rep.traps
	p.absorb(rep)
	return p, nil
}

// outcome is how waiting for a report ended.
type outcome string

const (
	answered    outcome = "answered"
	ended       outcome = "the shell exited"
	timedOut    outcome = "timed out"
	interrupted outcome = "interrupted"
)

// exchange sends c and waits for its report, the shell's exit, the timer
// or ctx, whichever comes first.
func (p *pshell) exchange(ctx context.Context, c shellCall, timer <-chan time.Time) (report, outcome) {
	c.nonce = nonce()
	req := request(c.script())
	written := make(chan error, 1)
	go func() {
		// A shell that stopped reading would block the write for good;
		// killing it, on timeout or interrupt, ends the write too.
		_, err := p.ctl.Write(req)
		written <- err
	}()
	for {
		select {
		case err := <-written:
			if err != nil {
				<-p.exited
				return report{}, ended
			}
			written = nil
		case rec, ok := <-p.records:
			if !ok {
				<-p.exited
				return report{}, ended
			}
			if rec.nonce != c.nonce {
				continue
			}
			rep, ok := parseReport(rec)
			if !ok {
				p.gone = "its report could not be read"
				return report{}, ended
			}
			return rep, answered
		case <-p.exited:
			return report{}, ended
		case <-timer:
			return report{}, timedOut
		case <-ctx.Done():
			return report{}, interrupted
		}
	}
}

// nonce returns a fresh random word for a report's markers.
func nonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic("terminal: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// run runs command in dir and returns what it did, as the per-call run
// does; the shell reports its exit status and directory. A command that
// ends the shell (exit, exec, kill $$, a failure under set -e), a
// timeout and an interrupt leave the shell gone.
func (p *pshell) run(ctx context.Context, command, dir string, timeout time.Duration) (RunResult, error) {
	if p.fifo == "" {
		p.seq++
		p.fifo = filepath.Join(p.fifos, "out"+strconv.Itoa(p.seq))
		if err := makeFifo(p.fifo); err != nil {
			p.fifo = ""
			return RunResult{}, err
		}
	}
	fifo := p.fifo
	out, keeper, err := openFifo(fifo)
	if err != nil {
		return RunResult{}, err
	}
	capt := NewCapture(p.t.opt.MaxOutputBytes)
	drained := make(chan struct{})
	go func() {
		// Runs until every holder of the pipe is gone, which may be after
		// run returns (a process left running with &).
		_, _ = io.Copy(capt, out)
		out.Close()
		close(drained)
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	c := shellCall{fifo: fifo, code: commandCode(command)}
	if dir != p.cwd {
		c.dir = dir
	}
	res := RunResult{Cause: Exited}
	rep, how := p.exchange(ctx, c, timer.C)
	if how == answered {
		res.ExitCode, res.Cwd = rep.status, rep.cwd
		if !rep.ran {
			keeper.Close()
			return RunResult{}, fmt.Errorf("cannot change into %s", dir)
		}
		how = p.followUp(ctx, rep, fifo, timer.C)
	}
	switch how {
	case ended:
		select {
		case <-p.exited:
		default: // alive, but its report was unreadable
			procgroup.Kill(p.pid)
			<-p.exited
		}
		res.ExitCode, res.Cwd = exitCode(p.cmd.ProcessState), ""
		if p.gone == "" {
			p.gone = "the command ended the shell"
		}
	case timedOut:
		res.Cause = TimedOut
		p.gone = "the command timed out and was killed with it"
		terminate(p.pid, p.exited)
	case interrupted:
		res.Cause = Interrupted
		p.gone = "the command was interrupted and killed with it"
		procgroup.Kill(p.pid)
		<-p.exited
	}
	keeper.Close()
	select {
	case <-drained:
	case <-time.After(DrainGrace):
		// A process the command left running still holds the pipe; the
		// next command gets a pipe of its own.
		os.Remove(fifo)
		p.fifo = ""
	}
	res.Output = capt.Snapshot(p.t.opt.MaxOutputLines)
	if res.Cause != Exited {
		res.ExitCode, res.Cwd = ExitTimeout, ""
	}
	return res, nil
}

// followUp finishes a call the way bash -c would have and leaves nothing
// of it but variables, functions and the directory: it runs the EXIT
// trap the command set, clears the traps it set on signals (which would
// run when a later command is stopped), and puts shell options it
// changed back, in one more request whose output goes where the
// command's did.
func (p *pshell) followUp(ctx context.Context, rep report, fifo string, timer <-chan time.Time) outcome {
	for range 2 {
		cur := p.absorb(rep)
		var reset []string
		code := ""
		if rep.traps != p.baseTraps {
			base := parseTraps(p.baseTraps)
			for signal, c := range parseTraps(rep.traps) {
				if b, ok := base[signal]; !ok || b != c {
					reset = append(reset, "builtin trap - "+signal)
				}
				if signal == "EXIT" {
					code = c
				}
			}
		}
		if opts := optionReset(p.base["SHELLOPTS"].value(), cur["SHELLOPTS"].value(),
			p.base["BASHOPTS"].value(), cur["BASHOPTS"].value()); opts != "" {
			reset = append(reset, opts)
		}
		if code == "" && len(reset) == 0 {
			return answered
		}
		if code == "" {
			code = ":"
		}
		var how outcome
		c := shellCall{fifo: fifo, code: code, prelude: strings.Join(reset, "; ")}
		if rep, how = p.exchange(ctx, c, timer); how != answered {
			return how
		}
	}
	p.absorb(rep)
	p.gone = "its options or traps could not be put back"
	return answered
}

// absorb takes in a report: where the shell is, and what it holds. It
// returns the declarations now in force. A shell whose builtins changed
// (enable -n, enable -f) or which made a variable its loop needs
// readonly cannot be trusted with another command.
func (p *pshell) absorb(rep report) map[string]declaration {
	p.cwd = rep.cwd
	if rep.vars != p.lastVars || p.decls == nil {
		p.decls, p.lastVars = parseDeclarations(rep.vars), rep.vars
		if p.base != nil {
			p.state.Vars = changedVars(p.base, p.decls)
		}
	}
	if rep.funcs != p.lastFuncs {
		p.state.Functions, p.lastFuncs = parseFunctions(rep.funcs), rep.funcs
	}
	if p.baseBuiltins != "" && rep.builtins != p.baseBuiltins {
		p.gone = "a command changed its builtins (enable)"
	}
	for _, name := range [...]string{"POSIXLY_CORRECT", "IFS", "__hermes_busy", "__hermes_s", "__hermes_c", "__hermes_n", "__hermes_r"} {
		if p.decls[name].readonly() {
			p.gone = "a command made " + name + " readonly"
		}
	}
	return p.decls
}

// closeGrace is how long a closed shell has to exit by itself, once its
// requests end, before its group is killed.
const closeGrace = 100 * time.Millisecond

// close ends the shell and everything it started, and removes its
// files. The shell is first let go (its requests end, and it exits, so
// it is reaped with its guard), then what is left of its group is
// killed.
func (p *pshell) close() {
	close(p.stop)
	p.ctl.Close()
	select {
	case <-p.exited:
	case <-time.After(closeGrace):
	}
	procgroup.Kill(p.pid)
	select {
	case <-p.exited:
	case <-time.After(stopWait):
	}
	os.RemoveAll(p.fifos)
}

// alive reports whether the shell can run another command.
func (p *pshell) alive() bool {
	if p.gone != "" {
		return false
	}
	select {
	case <-p.exited:
		p.gone = "the shell exited"
		return false
	default:
		return true
	}
}
