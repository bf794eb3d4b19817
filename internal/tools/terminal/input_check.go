package terminal

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/tool"
)

// inputState is what the process tool keeps of a background process's
// stdin between writes.
type inputState struct {
	// mu is held from the check of a write until it is written, so the
	// writes to one process are checked and written in order.
	mu sync.Mutex
	// reader is how the process reads its input; command is its command
	// line.
	reader  inputReader
	command string
	// pending is the input written so far that a reader may not have run
	// yet: for a shell, everything after the last whole command; for
	// others, the last line when it has no newline yet. It is checked
	// again with what is written next, so a command split across writes
	// (rm -rf \ then /) is judged whole.
	pending string
}

// startedNote tells the model, when it starts a process that reads
// commands, that what it writes to it is checked.
func (in *inputState) startedNote() string {
	if !in.reader.reads() {
		return ""
	}
	return "this process runs what is written to its stdin as commands, so process write and submit " +
		"check each write as the terminal checks a command: it may need approval, and a denied write is not sent"
}

// check asks the approver about data before it is written, as the
// terminal asks about a command (in the directory the process started in:
// where a shell has gone since with its own cd is not known here): for a shell the text it would run, for
// a program that reads code the text piped into that program, for a
// process whose reader is unknown the text piped into its command line
// run by a shell. Writes to a process that reads data, and writes of
// blanks alone (which only end a line already checked), are not checked.
func (pt *ProcessTool) checkInput(ctx context.Context, inv tool.Invocation, p *bgProc, data string) error {
	in := &p.input
	if !in.reader.reads() || strings.Trim(data, " \t\r\n") == "" {
		return nil
	}
	text := in.pending + data
	if len(text) > maxCommandBytes {
		return tool.Errorf(tool.CodeInvalidArguments, "%s runs what is written to it as commands, and the command being written "+
			"would be %d bytes; at most %d are checked at once: finish the command (or end the open quote, loop or "+
			"here-document) with a newline, or write a script to a file and run the file", p.id, len(text), maxCommandBytes)
	}
	for _, cmd := range in.reader.approvals(text, in.command) {
		err := pt.t.approve(ctx, inv, p.cwd, nil, cmd)
		if err == nil {
			err = pt.t.keepWrites(inv, p.cwd, nil, cmd)
		}
		if err == nil {
			continue
		}
		if te, ok := tool.AsError(err); ok && te.Code == tool.CodeDenied {
			return &tool.Error{Code: tool.CodeDenied, Message: fmt.Sprintf("nothing was written to %s: it runs %q, which "+
				"runs what it reads as commands, so the write was checked as this command: %s. %s", p.id, in.command, cmd, te.Message)}
		}
		return err
	}
	return nil
}

// wrote records data as written (all of it, or its first n bytes), and
// that stdin was closed when eof is set.
func (in *inputState) wrote(data string, eof bool) {
	if eof {
		in.pending = ""
		return
	}
	text := in.pending + data
	cut := strings.LastIndexByte(text, '\n') + 1
	if in.reader.shell {
		cut = settled(text)
	}
	in.pending = text[cut:]
}

// approvals returns the commands the approver is asked about for text
// written to a process read as r; command is the process's command line.
func (r inputReader) approvals(text, command string) []string {
	var out []string
	if r.shell {
		out = append(out, strings.TrimRight(text, "\n"))
	}
	piped := "printf '%s' " + shellQuote(text) + " | "
	for _, c := range r.code {
		out = append(out, piped+c)
	}
	if r.opaque {
		out = append(out, piped+"sh -c "+shellQuote(command))
	}
	return out
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
