package declared

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/procgroup"
	"github.com/hermes-go/hermes/internal/tool"
)

// Limits of a command's output.
const (
	// maxStdoutChars caps the text output of a command tool.
	maxStdoutChars = 50_000
	// maxStdoutBytes caps what is read of stdout at all (JSON output is
	// parsed from it).
	maxStdoutBytes = 8 << 20
	// stderrTailLines and stderrTailChars bound the stderr shown when a
	// command fails.
	stderrTailLines = 20
	stderrTailChars = 2000
	// killGrace is how long a cancelled command may take to exit after
	// SIGTERM before its process group gets SIGKILL.
	killGrace = 2 * time.Second
)

// keptEnv are the variables of hermes's own environment a command
// inherits; everything else (API keys above all) stays out.
var keptEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "TMPDIR"}

// cmdPlan is a compiled command: block.
type cmdPlan struct {
	argv    []*tmpl
	shell   bool
	dir     string // command.dir resolved against the file's directory
	fileDir string
	env     []namedTmpl
	stdin   *tmpl
	output  string
}

// cmdRun is a rendered command, ready to run and to show.
type cmdRun struct {
	argv     []string
	dir      string
	env      []string
	envNames []string
	envVals  []string // the values of envNames, in order
	line     string   // with shell, the command line sh -c runs
	stdin    string
	hasStdin bool
}

// render builds the command of one call. Without shell every argv
// element stays one argument; with shell the elements are joined into
// one sh -c line, the inserted values already quoted.
func (p *cmdPlan) render(ctx context.Context, args map[string]any, ce *callEnv) (*cmdRun, error) {
	r := &cmdRun{dir: p.dir}
	parts := make([]string, 0, len(p.argv))
	for _, t := range p.argv {
		s, err := t.render(args, ce)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	}
	if p.shell {
		r.line = strings.Join(parts, " ")
		r.argv = []string{"sh", "-c", r.line}
	} else {
		r.argv = parts
	}
	if r.dir == "" {
		r.dir = tool.InvocationFrom(ctx).Workdir
	}
	if r.dir == "" {
		r.dir = p.fileDir
	}
	for _, k := range keptEnv {
		if v, ok := os.LookupEnv(k); ok {
			r.env = append(r.env, k+"="+v)
		}
	}
	for _, nt := range p.env {
		v, err := nt.t.render(args, ce)
		if err != nil {
			return nil, err
		}
		r.env = append(r.env, nt.name+"="+v)
		r.envNames = append(r.envNames, nt.name)
		r.envVals = append(r.envVals, v)
	}
	if p.stdin != nil {
		s, err := p.stdin.render(args, ce)
		if err != nil {
			return nil, err
		}
		r.stdin, r.hasStdin = s, true
	}
	return r, nil
}

// String renders the command as a trace or an approval shows it: the
// command line (argv quoted as a shell would need), the directory, the
// names of the variables set, and stdin.
func (r *cmdRun) String() string {
	var b strings.Builder
	if len(r.argv) == 3 && r.argv[0] == "sh" && r.argv[1] == "-c" {
		b.WriteString("sh -c " + shellQuote(r.argv[2]))
	} else {
		for i, a := range r.argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(shellQuote(a))
		}
	}
	fmt.Fprintf(&b, "\ndir: %s", r.dir)
	if len(r.envNames) > 0 {
		fmt.Fprintf(&b, "\nenv: %s", strings.Join(r.envNames, ", "))
	}
	if r.hasStdin {
		fmt.Fprintf(&b, "\nstdin: %s", r.stdin)
	}
	return b.String()
}

// run executes the command in its own process group and turns its
// outcome into the call's data. When ctx ends the whole group is stopped:
// SIGTERM, then SIGKILL after killGrace. The group dies with hermes too
// (see groupCommand).
func (p *cmdPlan) run(ctx context.Context, r *cmdRun) (any, int, error) {
	if len(r.argv) == 0 || r.argv[0] == "" {
		return nil, -1, tool.Errorf(tool.CodeInternal, "command.argv[0] rendered empty; there is no program to run")
	}
	prog, err := resolveProgram(r.argv[0], r.dir)
	if err != nil {
		return nil, -1, tool.Errorf(tool.CodeInternal, "cannot run %s: %v", r.argv[0], err)
	}
	cmd := groupCommand(ctx, append([]string{prog}, r.argv[1:]...))
	cmd.Dir = r.dir
	cmd.Env = r.env
	if r.hasStdin {
		cmd.Stdin = strings.NewReader(r.stdin)
	}
	stdout := &capWriter{max: maxStdoutBytes}
	stderr := &tailWriter{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = killGrace
	done, err := procgroup.Start(cmd)
	if err == nil {
		err = <-done
	}
	if ctx.Err() != nil {
		// A command that finished on its own keeps whatever it left
		// running; a cancelled one loses its whole group.
		killGroup(cmd)
		return nil, -1, ctx.Err()
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case errors.As(err, &exitErr):
		code := exitErr.ExitCode()
		return nil, code, &tool.Error{Code: tool.CodeInternal,
			Message: fmt.Sprintf("exit status %d: %s", code, stderrTail(stderr.String())),
			Data:    map[string]any{"exit_code": code, "stdout": tailChars(stdout.String(), stderrTailChars)}}
	default:
		return nil, -1, tool.Errorf(tool.CodeInternal, "cannot run %s: %v", r.argv[0], err)
	}
	if p.output == "json" {
		var v any
		if err := json.Unmarshal(stdout.buf.Bytes(), &v); err != nil {
			return nil, 0, tool.Errorf(tool.CodeInternal, "the command's output is declared json but is not valid JSON (%v); it starts with %q",
				err, headChars(stdout.String(), 200))
		}
		return v, 0, nil
	}
	out := map[string]any{"exit_code": 0}
	text := strings.TrimSpace(stdout.String())
	var notes []string
	if utf8.RuneCountInString(text) > maxStdoutChars || stdout.cut {
		text = headChars(text, maxStdoutChars)
		notes = append(notes, fmt.Sprintf("stdout was cut to its first %d characters", maxStdoutChars))
	}
	out["stdout"] = text
	if e := strings.TrimSpace(stderr.String()); e != "" {
		out["stderr"] = stderrTail(e)
	}
	if len(notes) > 0 {
		out["note"] = strings.Join(notes, "; ")
	}
	return out, 0, nil
}

// resolveProgram finds the program argv[0] names the way exec does: a
// name with a slash is a path (relative to dir, where the command runs),
// any other name is looked up in PATH. It is resolved before the command
// starts so that a missing program is reported as such, not as the exit
// status of the shell that would have run it.
func resolveProgram(name, dir string) (string, error) {
	if !strings.Contains(name, "/") {
		return exec.LookPath(name)
	}
	path := name
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	if _, err := exec.LookPath(path); err != nil {
		return "", err
	}
	return path, nil
}

// capWriter keeps the first max bytes written to it.
type capWriter struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - w.buf.Len()
	if room < len(p) {
		w.cut = true
		if room > 0 {
			w.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

func (w *capWriter) String() string { return strings.ToValidUTF8(w.buf.String(), "\uFFFD") }

// tailWriter keeps about the last max bytes written to it.
type tailWriter struct {
	buf []byte
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return strings.ToValidUTF8(string(w.buf), "\uFFFD") }

// stderrTail is the last stderrTailLines lines of s, at most
// stderrTailChars characters.
func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no stderr)"
	}
	lines := strings.Split(s, "\n")
	if len(lines) > stderrTailLines {
		lines = lines[len(lines)-stderrTailLines:]
	}
	return tailChars(strings.Join(lines, "\n"), stderrTailChars)
}

// tailChars is the last n characters of s.
func tailChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

// headChars is the first n characters of s.
func headChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
