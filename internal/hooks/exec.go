package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/procgroup"
)

// maxStderr is how much of a hook's stderr is kept for the log line of a
// hook that failed.
const maxStderr = 2 << 10

// exec runs h once with stdin and parses its answer. A hook that runs past
// its timeout, exits non-zero, prints more than MaxOutput or prints
// something other than one JSON object is an error; its process group is
// killed so a hook's own children cannot outlive it.
func (r *Runner) exec(ctx context.Context, h Hook, stdin []byte) (Answer, error) {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, h.Command[0], h.Command[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = r.env()
	out := &capped{max: MaxOutput, full: cancel}
	errOut := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = out, errOut
	procgroup.NewSession(cmd)
	cmd.Cancel = func() error {
		if cmd.Process != nil {
			procgroup.Kill(cmd.Process.Pid)
		}
		return nil
	}
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case out.over():
		return Answer{}, fmt.Errorf("printed more than %d KiB on stdout; an answer is one small JSON object", MaxOutput>>10)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return Answer{}, fmt.Errorf("did not finish within %s and was stopped", timeout)
	case ctx.Err() != nil:
		return Answer{}, ctx.Err()
	case err != nil:
		if tail := strings.TrimSpace(errOut.String()); tail != "" {
			return Answer{}, fmt.Errorf("%w: %s", err, r.redact(tail))
		}
		return Answer{}, err
	}
	return parseAnswer(out.Bytes())
}

// parseAnswer reads a hook's stdout: nothing, or one JSON object.
func parseAnswer(b []byte) (Answer, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Answer{}, nil
	}
	var a Answer
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Answer{}, fmt.Errorf("answered %q, which is not one JSON object with block, arguments or context: %v", clip(string(b), 80), err)
	}
	if dec.More() {
		return Answer{}, fmt.Errorf("answered more than one JSON value; print one object with block, arguments or context")
	}
	if len(a.Arguments) > 0 && (a.Arguments[0] != '{' || !json.Valid(a.Arguments)) {
		return Answer{}, fmt.Errorf("answered arguments %s, which is not a JSON object", clip(string(a.Arguments), 80))
	}
	return a, nil
}

// clip cuts s to n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// capped keeps the first max bytes written to it and drops the rest, so
// a runaway hook can neither fill memory nor block on a full pipe; full,
// when set, is called once the cap is passed, which stops the hook.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	max  int
	lost bool
	full func()
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:max(room, 0)])
		if !c.lost && c.full != nil {
			c.full()
		}
		c.lost = true
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) over() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lost
}

func (c *capped) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

func (c *capped) String() string { return string(c.Bytes()) }
