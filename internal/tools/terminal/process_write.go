package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// write sends data to the process's stdin, once checkInput let it
// through.
func (pt *ProcessTool) write(ctx context.Context, inv tool.Invocation, p *bgProc, a processArgs) (WriteResult, error) {
	if a.Data == nil && !a.EOF && a.Action == "write" {
		return WriteResult{}, tool.Errorf(tool.CodeInvalidArguments, "write needs data (or eof: true to close stdin)")
	}
	data := ""
	if a.Data != nil {
		data = *a.Data
	}
	if a.Action == "submit" {
		data += "\n"
	}
	if len(data) > maxCommandBytes {
		return WriteResult{}, tool.Errorf(tool.CodeInvalidArguments, "data is %d bytes; at most %d are accepted per call", len(data), maxCommandBytes)
	}
	p.input.mu.Lock()
	defer p.input.mu.Unlock()
	// No one is asked to approve a write that cannot be made.
	p.stdinMu.Lock()
	closed := p.stdin == nil
	p.stdinMu.Unlock()
	if closed {
		return WriteResult{ProcessID: p.id}, stdinClosed(p)
	}
	if err := pt.checkInput(ctx, inv, p, data); err != nil {
		return WriteResult{ProcessID: p.id}, err
	}
	res, err := p.writeStdin(data, a.EOF)
	p.input.wrote(data[:res.BytesWritten], res.StdinClosed)
	return res, err
}

// writeStdin writes data to the process's stdin, bounded by writeTimeout,
// and closes it afterwards when eof is set.
func (p *bgProc) writeStdin(data string, eof bool) (WriteResult, error) {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	res := WriteResult{ProcessID: p.id}
	if p.stdin == nil {
		return res, stdinClosed(p)
	}
	if len(data) > 0 {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(writeTimeout))
		n, err := p.stdin.Write([]byte(data))
		res.BytesWritten = n
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return res, &tool.Error{Code: tool.CodeTimeout, Data: res, Message: fmt.Sprintf(
					"wrote %d of %d bytes in %s: %s is not reading its input", n, len(data), writeTimeout, p.id)}
			}
			return res, &tool.Error{Code: tool.CodeInvalidArguments, Data: res, Message: fmt.Sprintf(
				"%s no longer reads its input (%v); poll shows whether it exited", p.id, err)}
		}
	}
	if eof {
		p.stdin.Close()
		p.stdin = nil
		res.StdinClosed = true
	}
	return res, nil
}

func stdinClosed(p *bgProc) error {
	return tool.Errorf(tool.CodeInvalidArguments, "the stdin of %s is closed: the process exited or eof was sent", p.id)
}
