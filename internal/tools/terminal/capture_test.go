package terminal

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// feed writes s to a capture in chunks of n bytes, as a pipe would.
func feed(limit int, s string, n int) *Capture {
	c := NewCapture(limit)
	for len(s) > 0 {
		k := min(n, len(s))
		_, _ = c.Write([]byte(s[:k]))
		s = s[k:]
	}
	return c
}

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestCaptureKeepsSmallOutput(t *testing.T) {
	for _, chunk := range []int{1, 7, 4096} {
		out := feed(1000, "a\nb\nc", chunk).Snapshot(10)
		if out.Text != "a\nb\nc" || out.Truncated {
			t.Errorf("chunk %d: %+v", chunk, out)
		}
	}
}

func TestCaptureByteLimitKeepsTail(t *testing.T) {
	all := numbered(1, 10000) // 48,894 bytes
	for _, chunk := range []int{1, 100, 999, 1000, 1001, 65536} {
		out := feed(1000, all, chunk).Snapshot(100000)
		if !out.Truncated {
			t.Fatalf("chunk %d: not truncated", chunk)
		}
		notice, body, _ := strings.Cut(out.Text, "\n")
		if !strings.HasPrefix(notice, "[output truncated: showing the last ") ||
			!strings.Contains(notice, "of 10000 lines") || !strings.Contains(notice, "47.7 KB") {
			t.Errorf("chunk %d: notice %q", chunk, notice)
		}
		if len(body) > 1000 || !strings.HasSuffix(all, body) || !strings.HasSuffix(body, "9999\n10000\n") {
			t.Errorf("chunk %d: body is not the tail (%d bytes): %q", chunk, len(body), body[:min(len(body), 40)])
		}
		// The kept tail starts on a whole line.
		if first, _, _ := strings.Cut(body, "\n"); !strings.Contains(all, "\n"+first+"\n") {
			t.Errorf("chunk %d: first kept line %q is partial", chunk, first)
		}
	}
}

func TestCaptureLineLimitKeepsTail(t *testing.T) {
	out := feed(1<<20, numbered(1, 100), 64).Snapshot(10)
	want := "[output truncated: showing the last 10 of 100 lines (31 B of 292 B); " +
		"narrow the command or redirect its output to a file and read the parts you need]\n" +
		numbered(91, 100)
	if out.Text != want || !out.Truncated {
		t.Fatalf("got %q\nwant %q", out.Text, want)
	}
	// A final line without a newline counts as a line.
	out = feed(1<<20, "a\nb\nc", 64).Snapshot(2)
	if _, body, _ := strings.Cut(out.Text, "\n"); body != "b\nc" || !strings.Contains(out.Text, "last 2 of 3 lines") {
		t.Fatalf("unterminated: %q", out.Text)
	}
}

func TestCaptureCutsOnRuneBoundary(t *testing.T) {
	// One long line of three-byte runes: no newline to align to.
	all := strings.Repeat("终端", 2000)
	for _, limit := range []int{100, 101, 102} {
		out := feed(limit, all, 37).Snapshot(10)
		_, body, _ := strings.Cut(out.Text, "\n")
		if !utf8.ValidString(out.Text) || !strings.HasSuffix(all, body) || len(body) == 0 {
			t.Errorf("limit %d: %q", limit, body)
		}
	}
}

func TestCaptureDiscardsAfterSnapshot(t *testing.T) {
	c := feed(100, "before\n", 100)
	out := c.Snapshot(10)
	if n, err := c.Write([]byte("after\n")); n != 6 || err != nil {
		t.Fatalf("Write after snapshot = %d, %v", n, err)
	}
	if out.Text != "before\n" || c.Snapshot(10).Text != "before\n" {
		t.Fatalf("output changed after snapshot")
	}
}

func TestCaptureMemoryBounded(t *testing.T) {
	c := NewCapture(1000)
	chunk := []byte(strings.Repeat("x", 999) + "\n")
	for range 10000 {
		_, _ = c.Write(chunk)
	}
	if cap(c.buf) > 4*1000 {
		t.Fatalf("buffer grew to %d bytes", cap(c.buf))
	}
	if c.total != 10000*1000 || c.lines != 10000 {
		t.Fatalf("counted %d bytes, %d lines", c.total, c.lines)
	}
}

func TestSizeString(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 51200: "50.0 KB", 1258291: "1.2 MB"} {
		if got := sizeString(n); got != want {
			t.Errorf("sizeString(%d) = %q, want %q", n, got, want)
		}
	}
}
