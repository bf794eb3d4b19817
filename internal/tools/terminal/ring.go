package terminal

import (
	"bytes"
	"sync"
	"unicode/utf8"
)

// ring holds the output of a background process: the last limit bytes
// of everything it wrote, with counts of what was dropped before them, so
// byte offsets and line numbers keep meaning the same thing however much
// the process prints. Write is called by the goroutine draining the
// process's output pipe; the other methods by tool calls.
type ring struct {
	mu    sync.Mutex
	limit int
	// buf holds at most 2*limit bytes; the kept output is its last limit
	// bytes. Compacting only when it doubles keeps the cost per byte
	// constant.
	buf []byte
	// total counts every byte written; newlines every '\n'.
	total    int64
	newlines int64
	// goneNL counts the newlines in bytes compacted out of buf, and
	// goneLast is the last byte compacted out.
	goneNL   int64
	goneLast byte
}

func newRing(limit int) *ring { return &ring{limit: limit} }

// Write keeps p's tail and always succeeds, so the pipe is always drained
// and the process never blocks on it.
func (r *ring) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(len(p))
	r.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if len(r.buf)+len(p) > 2*r.limit {
		// Drop everything but what is still needed for the last limit
		// bytes once p is appended.
		keep := r.limit - len(p)
		if keep < 0 {
			keep = 0
		}
		if keep > len(r.buf) {
			keep = len(r.buf)
		}
		r.drop(r.buf[:len(r.buf)-keep])
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-keep:]...)
		if len(p) > r.limit {
			r.drop(p[:len(p)-r.limit])
			p = p[len(p)-r.limit:]
		}
	}
	r.buf = append(r.buf, p...)
	return len(p), nil
}

// drop accounts for bytes leaving the buffer for good.
func (r *ring) drop(b []byte) {
	if len(b) == 0 {
		return
	}
	r.goneNL += int64(bytes.Count(b, []byte{'\n'}))
	r.goneLast = b[len(b)-1]
}

// ringView is a copy of the kept output with its place in the whole.
type ringView struct {
	data  []byte // the kept bytes, a copy
	start int64  // offset of data[0] in the whole output
	total int64  // bytes written in all
	// droppedNL counts the newlines before start; midLine is true when
	// start falls inside a line, so data's first line is incomplete.
	droppedNL int64
	midLine   bool
	newlines  int64 // newlines in the whole output
}

// view copies the kept output.
func (r *ring) view() ringView {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.buf
	nl, last := r.goneNL, r.goneLast
	if extra := len(kept) - r.limit; extra > 0 {
		nl += int64(bytes.Count(kept[:extra], []byte{'\n'}))
		last = kept[extra-1]
		kept = kept[extra:]
	}
	start := r.total - int64(len(kept))
	return ringView{
		data:      bytes.Clone(kept),
		start:     start,
		total:     r.total,
		droppedNL: nl,
		midLine:   start > 0 && last != '\n',
		newlines:  r.newlines,
	}
}

// size returns the number of bytes written so far.
func (r *ring) size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// since returns the output from byte offset from on, at most max bytes of
// it (the newest), and the offset the caller has now seen up to. skipped
// counts the bytes after from that are not returned: dropped from the
// ring or cut by max. When hold is set, an incomplete UTF-8 sequence at
// the end is held back for the next read (the process may be writing the
// rest of it).
func (r *ring) since(from int64, max int, hold bool) (text string, next, skipped int64) {
	v := r.view()
	if from < v.start {
		skipped = v.start - from
		from = v.start
	}
	if from > v.total {
		from = v.total
	}
	b := v.data[from-v.start:]
	if hold {
		b = b[:len(b)-incompleteSuffix(b)]
	}
	next = from + int64(len(b))
	if len(b) > max {
		skipped += int64(len(b) - max)
		b = b[len(b)-max:]
	}
	if skipped > 0 {
		for len(b) > 0 && !utf8.RuneStart(b[0]) {
			b = b[1:]
			skipped++
		}
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD"))), next, skipped
}

// incompleteSuffix returns the length of a UTF-8 sequence at the end of b
// that is cut short, or 0.
func incompleteSuffix(b []byte) int {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && !utf8.FullRune(b[len(b)-i:]) {
				return i
			}
			return 0
		}
	}
	return 0
}

// lines splits the view into complete lines, numbered from 0 over the whole
// output: it returns the kept lines without their newlines and the number
// of the first one. A line the ring cut in the middle is left out; a last
// line without a newline is included.
func (v ringView) lines() (lines []string, first int64) {
	first = v.droppedNL
	data := v.data
	if v.midLine {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			// All that is kept is the end of one line.
			return nil, first + 1
		}
		data = data[i+1:]
		first++
	}
	if len(data) == 0 {
		return nil, first
	}
	data = bytes.TrimSuffix(data, []byte{'\n'})
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		lines = append(lines, string(bytes.ToValidUTF8(l, []byte("\uFFFD"))))
	}
	return lines, first
}
