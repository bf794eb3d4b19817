package acp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"
)

// terminals is an editor's side of terminal/*: each terminal really runs
// its command, in a process group of its own, and keeps the tail of its
// output as ACP says.
type terminals struct {
	mu      sync.Mutex
	byID    map[string]*fakeTerm
	created []acpsdk.CreateTerminalRequest
	killed  []string
	freed   []string
	freedCh chan string
	// env is added to every terminal's environment, as an editor's own.
	env []string
	// started, when set, hears each terminal id once its command runs;
	// freedCh, when set, once it is released.
	started chan string
}

// fakeTerm is one terminal.
type fakeTerm struct {
	cmd   *exec.Cmd
	limit int
	mu    sync.Mutex
	out   []byte
	cut   bool
	done  chan struct{}
	exit  acpsdk.WaitForTerminalExitResponse
}

func (f *fakeTerm) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out = append(f.out, p...)
	if f.limit > 0 && len(f.out) > f.limit {
		drop := len(f.out) - f.limit
		for drop < len(f.out) && !utf8.RuneStart(f.out[drop]) {
			drop++
		}
		f.out, f.cut = f.out[drop:], true
	}
	return len(p), nil
}

func (ts *terminals) create(_ context.Context, r acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	ft := &fakeTerm{cmd: exec.Command(r.Command, r.Args...), done: make(chan struct{})}
	if r.OutputByteLimit != nil {
		ft.limit = *r.OutputByteLimit
	}
	if r.Cwd != nil {
		ft.cmd.Dir = *r.Cwd
	}
	ft.cmd.Env = append(os.Environ(), ts.env...)
	for _, e := range r.Env {
		ft.cmd.Env = append(ft.cmd.Env, e.Name+"="+e.Value)
	}
	ft.cmd.Stdout, ft.cmd.Stderr = ft, ft
	ft.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := ft.cmd.Start(); err != nil {
		return acpsdk.CreateTerminalResponse{}, err
	}
	go func() {
		_ = ft.cmd.Wait()
		ws := ft.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			name := map[syscall.Signal]string{syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM"}[ws.Signal()]
			ft.exit.Signal = &name
		} else {
			code := ws.ExitStatus()
			ft.exit.ExitCode = &code
		}
		close(ft.done)
	}()
	ts.mu.Lock()
	if ts.byID == nil {
		ts.byID = make(map[string]*fakeTerm)
	}
	id := fmt.Sprintf("term-%d", len(ts.created)+1)
	ts.byID[id] = ft
	ts.created = append(ts.created, r)
	started := ts.started
	ts.mu.Unlock()
	if started != nil {
		started <- id
	}
	return acpsdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (ts *terminals) get(id string) (*fakeTerm, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ft, ok := ts.byID[id]
	if !ok {
		return nil, fmt.Errorf("no terminal %q", id)
	}
	return ft, nil
}

func (ts *terminals) wait(ctx context.Context, r acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	ft, err := ts.get(r.TerminalId)
	if err != nil {
		return acpsdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-ft.done:
		return ft.exit, nil
	case <-ctx.Done():
		return acpsdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
}

func (ts *terminals) kill(_ context.Context, r acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	ft, err := ts.get(r.TerminalId)
	if err != nil {
		return acpsdk.KillTerminalResponse{}, err
	}
	ts.mu.Lock()
	ts.killed = append(ts.killed, r.TerminalId)
	ts.mu.Unlock()
	_ = syscall.Kill(-ft.cmd.Process.Pid, syscall.SIGKILL)
	<-ft.done
	return acpsdk.KillTerminalResponse{}, nil
}

func (ts *terminals) output(_ context.Context, r acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	ft, err := ts.get(r.TerminalId)
	if err != nil {
		return acpsdk.TerminalOutputResponse{}, err
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return acpsdk.TerminalOutputResponse{Output: string(ft.out), Truncated: ft.cut}, nil
}

func (ts *terminals) release(_ context.Context, r acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	ft, err := ts.get(r.TerminalId)
	if err != nil {
		return acpsdk.ReleaseTerminalResponse{}, err
	}
	_ = syscall.Kill(-ft.cmd.Process.Pid, syscall.SIGKILL)
	ts.mu.Lock()
	delete(ts.byID, r.TerminalId)
	ts.freed = append(ts.freed, r.TerminalId)
	freed := ts.freedCh
	ts.mu.Unlock()
	if freed != nil {
		freed <- r.TerminalId
	}
	return acpsdk.ReleaseTerminalResponse{}, nil
}

// summary says what the editor was asked to do with its terminals.
func (ts *terminals) summary() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return fmt.Sprintf("created %d, killed %s, released %s", len(ts.created), strings.Join(ts.killed, ","), strings.Join(ts.freed, ","))
}
