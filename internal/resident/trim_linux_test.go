package resident

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile reads the process's resident file pages, in kB.
func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestTrim checks that the resident code and constant data shrink and
// that the program goes on running (and reading its own data) after.
func TestTrim(t *testing.T) {
	before := rssFile(t)
	n, err := Trim()
	if err != nil {
		t.Fatal(err)
	}
	after := rssFile(t)
	if n <= 0 {
		t.Fatalf("Trim advised %d bytes; want the executable's read-only segments", n)
	}
	if after >= before {
		t.Errorf("RssFile %d kB before Trim, %d kB after; want less", before, after)
	}
	// Code and strings come back on use.
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Errorf("after Trim, Repeat gave %q", got)
	}
}

func TestReadOnlyOf(t *testing.T) {
	exe := "/usr/local/bin/hermes"
	for _, c := range []struct {
		line string
		ok   bool
	}{
		{"00400000-00c52000 r-xp 00000000 08:01 1234 /usr/local/bin/hermes", true},
		{"00c52000-01200000 r--p 00852000 08:01 1234 /usr/local/bin/hermes", true},
		{"00c52000-01200000 r--p 00852000 08:01 1234 /usr/local/bin/hermes (deleted)", true},
		{"01200000-01300000 rw-p 00e00000 08:01 1234 /usr/local/bin/hermes", false},
		{"01200000-01300000 r-xs 00e00000 08:01 1234 /usr/local/bin/hermes", false},
		{"7f0000000000-7f0000001000 r-xp 00000000 08:01 99 /usr/lib/libc.so.6", false},
		{"7f0000000000-7f0000001000 r--p 00000000 00:00 0", false},
		{"7f0000000000-7f0000001000 r--p 00000000 08:01 1234 /usr/local/bin/hermes-old", false},
		{"zz-01 r--p 0 08:01 1234 /usr/local/bin/hermes", false},
	} {
		if _, _, ok := readOnlyOf(c.line, exe); ok != c.ok {
			t.Errorf("%q: %v, want %v", c.line, ok, c.ok)
		}
	}
}
