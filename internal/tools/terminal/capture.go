package terminal

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Capture collects a command's combined output, keeping only the last
// limit bytes in memory however much the command prints, because the end
// of the output (the error, the summary, the prompt a tool left) is what
// the model needs. It counts every byte and line it saw so the cut can be
// reported.
//
// Write is called by the goroutine reading the output pipe; Snapshot may be
// called from another goroutine while that reader still runs (a process
// left in the background keeps the pipe open), after which further output
// is discarded.
type Capture struct {
	mu      sync.Mutex
	limit   int
	buf     []byte // holds at most 2*limit bytes; the tail is the last limit
	total   int64  // bytes seen
	lines   int64  // newlines seen
	last    byte   // last byte seen, to count a final unterminated line
	stopped bool
}

// NewCapture returns a Capture keeping the last limit bytes. It starts
// with no buffer: most commands print little, and the buffer grows by
// append only as far as the output needs.
func NewCapture(limit int) *Capture {
	return &Capture{limit: limit}
}

// Write always succeeds so the reader keeps draining the pipe and the
// command never blocks on a full pipe.
func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || len(p) == 0 {
		return len(p), nil
	}
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	c.last = p[len(p)-1]
	if len(p) >= c.limit {
		c.buf = append(c.buf[:0], p[len(p)-c.limit:]...)
		return len(p), nil
	}
	if len(c.buf)+len(p) > 2*c.limit {
		// Compact to the last limit bytes; copying only when the buffer
		// doubles keeps the cost per byte constant.
		keep := c.buf[len(c.buf)-(c.limit-len(p)):]
		c.buf = append(c.buf[:0], keep...)
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// Output is what the model sees of a command's output.
type Output struct {
	Text      string
	Truncated bool // Text was cut
}

// Snapshot stops the capture and returns the output, cut to maxLines
// lines and the byte limit, with a first line saying how much was cut.
func (c *Capture) Snapshot(maxLines int) Output {
	c.mu.Lock()
	c.stopped = true
	tail := c.buf
	if len(tail) > c.limit {
		tail = tail[len(tail)-c.limit:]
	}
	total, lines, last := c.total, c.lines, c.last
	c.mu.Unlock()
	return cut(tail, total, lines, last, maxLines)
}

// cut trims tail (the last bytes of an output of total bytes and newlines
// newline characters) to whole lines, at most maxLines of them, and adds
// the truncation notice.
func cut(tail []byte, total, newlines int64, last byte, maxLines int) Output {
	return cutWithHint(tail, total, newlines, last, maxLines,
		"narrow the command or redirect its output to a file and read the parts you need")
}

// cutWithHint is cut with the advice the notice ends with.
func cutWithHint(tail []byte, total, newlines int64, last byte, maxLines int, hint string) Output {
	totalLines := newlines
	if total > 0 && last != '\n' {
		totalLines++
	}
	cutBytes := int64(len(tail)) < total
	if cutBytes {
		// Start at a line boundary when one is near, otherwise at least
		// at a character boundary, so no half line or half rune leads.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < 1024 && i+1 < len(tail) {
			tail = tail[i+1:]
		} else {
			for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
				tail = tail[1:]
			}
		}
	}
	shownLines := int64(bytes.Count(tail, []byte{'\n'}))
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		shownLines++
	}
	if shownLines > int64(maxLines) {
		// Keep the last maxLines lines: skip past the newline that ends
		// line shownLines-maxLines.
		skip := shownLines - int64(maxLines)
		i := 0
		for ; skip > 0; skip-- {
			i += bytes.IndexByte(tail[i:], '\n') + 1
		}
		tail = tail[i:]
		shownLines = int64(maxLines)
	}
	text := strings.ToValidUTF8(string(tail), "\uFFFD")
	if int64(len(tail)) == total {
		return Output{Text: text}
	}
	notice := fmt.Sprintf("[output truncated: showing the last %d of %d lines (%s of %s); %s]\n",
		shownLines, totalLines, sizeString(int64(len(tail))), sizeString(total), hint)
	return Output{Text: notice + text, Truncated: true}
}

// sizeString prints a byte count for people: 512 B, 50.0 KB, 1.2 MB.
func sizeString(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
	}
}
