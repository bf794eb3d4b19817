package files

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed read.md
var readDescription string

// ReadFile is the read_file tool.
type ReadFile struct{ o Options }

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// ReadResult is read_file's data. Content holds the lines as "N|text".
// NextOffset is set when lines remain after the ones shown.
type ReadResult struct {
	Content    string `json:"content"`
	Path       string `json:"path"`
	TotalLines int    `json:"total_lines"`
	Truncated  bool   `json:"truncated,omitempty"`
	NextOffset int    `json:"next_offset,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Spec describes read_file. It only reads, so calls may run side by side
// and be retried.
func (r *ReadFile) Spec() tool.Spec {
	return tool.Spec{
		Name:        "read_file",
		Description: readDescription,
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to read (absolute, relative to the working directory, or ~/...)."},
    "offset": {"type": "integer", "minimum": 1, "default": 1, "description": "Line number to start reading from (1-indexed)."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "default": ` + strconv.Itoa(DefaultReadLimit) + `, "description": "Maximum number of lines to read."}
  },
  "required": ["path"]
}`),
		Toolset:      Toolset,
		ParallelSafe: true,
		Idempotent:   true,
		// Room for the content and the other fields, so the dispatcher's
		// cut never hides next_offset.
		MaxOutput: r.o.MaxReadChars + 4096,
	}
}

// jsonLen is about how many bytes s takes inside a JSON string: the
// characters JSON escapes take two.
func jsonLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			n++
		}
	}
	return n
}

// Call reads lines offset..offset+limit-1 of the file. It streams the
// file once, so total_lines is exact even for files far larger than what
// is returned.
func (r *ReadFile) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a readArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be {path, offset?, limit?}: %v", err)
	}
	if a.Offset <= 0 {
		a.Offset = 1
	}
	if a.Limit <= 0 {
		a.Limit = DefaultReadLimit
	}
	abs, err := r.o.abs(ctx, a.Path)
	if err != nil {
		return nil, err
	}
	if err := r.o.checkRead(ctx, abs); err != nil {
		return nil, err
	}
	var src io.Reader
	var fsize int64
	if r.o.FS != nil {
		if src, fsize, err = r.openFS(ctx, abs, a.Path); err != nil {
			return nil, err
		}
	} else {
		f, err := os.Open(abs)
		if err != nil {
			return nil, statError(abs, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, statError(abs, err)
		}
		if fi.IsDir() {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory, not a file; list it with search_files (target \"files\", path %q)", abs, a.Path)
		}
		src, fsize = f, fi.Size()
	}
	br := bufio.NewReaderSize(src, 64<<10)
	head, _ := br.Peek(sniffLen)
	binary := isBinary(head)
	eightBit := binary && isEightBit(head)
	if binary && !eightBit {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a binary file (%d bytes, %s); read_file shows text only. Inspect it with the terminal tool (file, xxd, or a program that understands the format)", abs, fsize, guessMIME(abs, head))
	}
	if r.o.FS == nil && !eightBit {
		if text, ok := readThrough(ctx, abs, fsize); ok {
			br = bufio.NewReaderSize(strings.NewReader(text), 64<<10)
		}
	}

	res := ReadResult{Path: r.o.display(ctx, abs)}
	var b strings.Builder
	size := 0 // of the content as JSON, which the output cap measures
	last := a.Offset + a.Limit - 1
	n := 0
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, tool.Errorf(tool.CodeInternal, "reading %s: %v", abs, err)
			}
			break
		}
		n++
		if n < a.Offset || n > last || res.Truncated {
			continue
		}
		text := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if eightBit {
			text = decode8(text)
		}
		text = cutLine(text, r.o.MaxLineChars)
		entry := strconv.Itoa(n) + "|" + text + "\n"
		cost := jsonLen(entry)
		if size+cost > r.o.MaxReadChars && b.Len() > 0 {
			res.Truncated = true
			res.NextOffset = n
			continue
		}
		b.WriteString(entry)
		size += cost
	}
	res.TotalLines = n
	res.Content = strings.TrimSuffix(b.String(), "\n")
	switch {
	case n == 0:
		res.Note = "the file is empty"
	case a.Offset > n:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "offset %d is past the end of %s, which has %d lines", a.Offset, abs, n)
	case res.Truncated:
		res.Note = fmt.Sprintf("output reached the %d-character cap at line %d of %d; continue with offset=%d (and a smaller limit for long lines)", r.o.MaxReadChars, res.NextOffset-1, n, res.NextOffset)
	case last < n:
		res.Truncated = true
		res.NextOffset = last + 1
		res.Note = fmt.Sprintf("showing lines %d-%d of %d; continue with offset=%d", a.Offset, last, n, last+1)
	}
	if eightBit {
		res.Note = strings.TrimPrefix(res.Note+"; "+eightBitNote, "; ")
	}
	return res, nil
}

// openFS reads the file abs of r.o.FS whole, as it has no streaming
// read; arg is the path as given, for messages.
func (r *ReadFile) openFS(ctx context.Context, abs, arg string) (io.Reader, int64, error) {
	data, err := r.o.FS.ReadFile(ctx, abs, maxRemoteRead)
	if errors.Is(err, syscall.EISDIR) {
		return nil, 0, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory, not a file; list it with search_files (target \"files\", path %q)", abs, arg)
	}
	if errors.Is(err, ErrTooLarge) {
		return nil, 0, tool.Errorf(tool.CodeInvalidArguments, "%s is larger than %d bytes, the most read_file reads from this host; read parts of it with the terminal tool (sed -n 'FROM,TOp' FILE)", abs, maxRemoteRead)
	}
	if err != nil {
		return nil, 0, r.o.statErrorFS(ctx, abs, err)
	}
	return bytes.NewReader(data), int64(len(data)), nil
}

// cutLine shortens a line longer than max characters, saying how long it
// was, so one minified line cannot fill the whole result.
func cutLine(s string, max int) string {
	if len(s) <= max || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := utf8.RuneCountInString(s)
	i, k := 0, 0
	for i = range s {
		if k == max {
			break
		}
		k++
	}
	return s[:i] + fmt.Sprintf("… [line cut: %d characters in all]", n)
}
