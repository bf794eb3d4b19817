package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/terminal"
)

// sshRun is one started remote run.
type sshRun struct {
	client *ssh.Client
	sess   *ssh.Session
	stdin  io.WriteCloser
	stdout io.Reader
	ctl    *sshControl
}

// start opens a session and starts sshOuter in it for place p, with the
// watchdog delay in seconds (0 for a background process). The caller
// writes the command's script and a NUL to stdin, and reads stdout; the
// control records are being read.
func (b *Backend) start(ctx context.Context, p terminal.Place, watchdog int) (*sshRun, error) {
	c, sess, err := b.newSession(ctx)
	if err != nil {
		return nil, err
	}
	r := &sshRun{client: c, sess: sess, ctl: newSSHControl(newToken())}
	var stderr io.Reader
	if r.stdin, err = sess.StdinPipe(); err == nil {
		if r.stdout, err = sess.StdoutPipe(); err == nil {
			stderr, err = sess.StderrPipe()
		}
	}
	if err != nil {
		sess.Close()
		return nil, err
	}
	remote := "env -u SSH_CLIENT -u SSH2_CLIENT bash -c " + shellQuote(outerScript()) + " hermes " + r.ctl.token + " " +
		shellQuote(p.Base) + " " + shellQuote(p.Dir) + " " + shellQuote(p.Workdir) + " " + strconv.Itoa(watchdog)
	if err := sess.Start(remote); err != nil {
		sess.Close()
		b.dropIfDead(c)
		return nil, err
	}
	go r.ctl.read(stderr)
	return r, nil
}

// placeErr is the error for a missing directory the run reported, or nil.
func (b *Backend) placeErr(ctl *sshControl) error {
	if dir, ok := ctl.get("nobase"); ok {
		return tool.Errorf(tool.CodeNotFound, "the remote start directory %s does not exist on %s or is not a directory; nothing ran", dir, b.Name())
	}
	if dir, ok := ctl.get("noworkdir"); ok {
		return tool.Errorf(tool.CodeInvalidArguments, "workdir %q does not exist on %s or is not a directory (relative paths start at the session's directory); nothing ran", dir, b.Name())
	}
	return nil
}

// startNote is the note for a run that could not start in the session's
// remembered directory, or "".
func startNote(ctl *sshControl) string {
	gone, ok := ctl.get("gone")
	if !ok {
		return ""
	}
	start, _ := ctl.get("start")
	return terminal.VanishedNote(gone, start)
}

// Run runs cmd on the host. Output handling matches the local run: one
// capture of the tail, terminal.DrainGrace for output left by processes
// the command put in the background.
func (b *Backend) Run(ctx context.Context, cmd terminal.Command, p terminal.Place) (terminal.RunResult, error) {
	command, timeout := cmd.Text, cmd.Timeout
	r, err := b.start(ctx, p, int((timeout+sshWatchdogSlack)/time.Second)+1)
	if err != nil {
		return terminal.RunResult{}, err
	}
	c, sess, stdout, ctl := r.client, r.sess, r.stdout, r.ctl
	defer sess.Close()
	go func() {
		_, _ = io.WriteString(r.stdin, sshScript(ctl.token, command)+"\x00")
		_ = r.stdin.Close()
	}()
	capt := terminal.NewCapture(cmd.MaxOutputBytes)
	drained := make(chan struct{})
	go func() {
		_, _ = io.Copy(capt, stdout)
		close(drained)
	}()

	res := terminal.RunResult{Cause: terminal.Exited}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ctl.done:
	case <-timer.C:
		// The signals go out on sessions of their own without waiting
		// for them, so stopping takes about 3*KillGrace at most, within
		// the dispatcher's slack.
		res.Cause = terminal.TimedOut
		pg := ctl.pgid(terminal.KillGrace)
		go b.signal(c, pg, "TERM")
		select {
		case <-ctl.done:
		case <-time.After(terminal.KillGrace):
		}
		go b.signal(c, pg, "KILL")
	case <-ctx.Done():
		res.Cause = terminal.Interrupted
		go b.signal(c, ctl.pgid(terminal.KillGrace), "KILL")
	}
	if res.Cause != terminal.Exited {
		select {
		case <-ctl.done:
		case <-time.After(terminal.KillGrace):
		}
	}
	select {
	case <-drained:
	case <-time.After(terminal.DrainGrace):
	}
	res.Output = capt.Snapshot(cmd.MaxOutputLines)
	_ = sess.Close()

	if err := b.placeErr(ctl); err != nil {
		return terminal.RunResult{}, err
	}
	res.Start, _ = ctl.get("start")
	res.Note = startNote(ctl)
	if res.Cause != terminal.Exited {
		res.ExitCode = terminal.ExitTimeout
		return res, nil
	}
	status, ok := ctl.get("exit")
	if !ok {
		b.dropIfDead(c)
		msg := ctl.noiseText()
		if msg == "" {
			msg = "the connection or the session ended first"
		}
		return terminal.RunResult{}, &tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: no exit status from %s (%s); the command may still be running there "+
				"until its watchdog kills it at the timeout; the output so far is in data", b.Name(), msg),
			Data: terminal.Result{Output: res.Output.Text, ExitCode: -1, Cwd: res.Start, Truncated: res.Output.Truncated}}
	}
	if res.ExitCode, err = strconv.Atoi(status); err != nil {
		res.ExitCode = -1
	}
	res.Cwd, _ = ctl.get("pwd")
	return res, nil
}

// signal sends sig to the remote process group pg through a short
// session of its own. It does nothing when the group is unknown or the
// connection is gone: the watchdog on the host is the last resort.
func (b *Backend) signal(c *ssh.Client, pg int, sig string) {
	if pg <= 1 {
		return
	}
	s, err := c.NewSession()
	if err != nil {
		return
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(fmt.Sprintf("kill -s %s -- -%d 2>/dev/null; true", sig, pg)) }()
	select {
	case <-done:
	case <-time.After(sshSignalTimeout):
	}
}

// Spawn starts command at p in the background on the host and returns
// the process, with the directory it started in and a note, the way the
// local spawn does. Its stdin stays open for the process tool's write;
// the directory report goes nowhere, as a background command does not
// move the session. The process's group is signalled through short
// sessions; if the connection drops, the process is reported exited with
// code -1 and whatever it left on the host keeps running until its output
// has nowhere to go.
func (b *Backend) Spawn(ctx context.Context, command string, p terminal.Place) (terminal.Spawned, error) {
	r, err := b.start(ctx, p, 0)
	if err != nil {
		return terminal.Spawned{}, err
	}
	fail := func(err error) (terminal.Spawned, error) {
		r.sess.Close()
		return terminal.Spawned{}, err
	}
	if _, err := io.WriteString(r.stdin, sshScript(r.ctl.token, command)+"\x00"); err != nil {
		return fail(fmt.Errorf("terminal: sending the command to %s: %w", b.Name(), err))
	}
	wait := time.NewTimer(b.cfg.ConnectTimeout)
	defer wait.Stop()
	select {
	case <-r.ctl.pid:
	case <-r.ctl.done:
	case <-ctx.Done():
		return fail(fmt.Errorf("terminal: interrupted while starting the command on %s: %w", b.Name(), ctx.Err()))
	case <-wait.C:
	}
	if err := b.placeErr(r.ctl); err != nil {
		return fail(err)
	}
	pg := r.ctl.pgid(0)
	if pg == 0 {
		msg := r.ctl.noiseText()
		if msg == "" {
			msg = "no process group was reported"
		}
		return fail(&tool.Error{Code: tool.CodeUpstreamUnavailable,
			Message: fmt.Sprintf("terminal: the command did not start on %s: %s", b.Name(), msg)})
	}
	start, _ := r.ctl.get("start")
	ctl := r.ctl
	return terminal.Spawned{
		PID:    pg,
		Cwd:    start,
		Note:   startNote(ctl),
		Output: sessionOutput{r.stdout, r.sess},
		Stdin:  &sshStdin{w: r.stdin},
		Wait: func() int {
			<-ctl.done
			status, ok := ctl.get("exit")
			if !ok {
				return -1
			}
			code, err := strconv.Atoi(status)
			if err != nil {
				return -1
			}
			return code
		},
		Signal: func(kill bool) {
			sig := "TERM"
			if kill {
				sig = "KILL"
			}
			b.signal(r.client, pg, sig)
		},
	}, nil
}

// sessionOutput is a background process's output; the terminal reads it
// until every holder of it is gone, and closing it closes the session.
type sessionOutput struct {
	io.Reader
	sess *ssh.Session
}

func (o sessionOutput) Close() error { return o.sess.Close() }

// sshStdin gives a session's stdin the write deadline the process tool
// sets. A write that misses it goes on in the background, and later
// writes fail rather than interleave with it. The terminal serialises
// the calls.
type sshStdin struct {
	w        io.WriteCloser
	deadline time.Time
	broken   error
}

func (s *sshStdin) SetWriteDeadline(t time.Time) error {
	s.deadline = t
	return nil
}

func (s *sshStdin) Write(p []byte) (int, error) {
	if s.broken != nil {
		return 0, s.broken
	}
	if s.deadline.IsZero() {
		return s.w.Write(p)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	buf := append([]byte(nil), p...)
	go func() {
		n, err := s.w.Write(buf)
		done <- result{n, err}
	}()
	timer := time.NewTimer(time.Until(s.deadline))
	defer timer.Stop()
	select {
	case r := <-done:
		return r.n, r.err
	case <-timer.C:
		s.broken = errors.New("an earlier write is still waiting for the process to read")
		return 0, os.ErrDeadlineExceeded
	}
}

func (s *sshStdin) Close() error { return s.w.Close() }
