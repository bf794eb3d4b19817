package tui

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// maxHistory bounds the lines the history file keeps; older ones are
// dropped when it is written.
const maxHistory = 1000

// History is the input history kept in a file, one quoted line per entry
// (so an entry may span lines), readable only by its owner. A line that
// holds something redact.Secrets would hide is never stored.
type History struct {
	path  string
	lines []string
}

// LoadHistory reads the history at path; a missing or unreadable file
// starts an empty one.
func LoadHistory(path string) *History {
	h := &History{path: path}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if l, err := strconv.Unquote(sc.Text()); err == nil {
			h.lines = append(h.lines, l)
		}
	}
	if len(h.lines) > maxHistory {
		h.lines = h.lines[len(h.lines)-maxHistory:]
	}
	return h
}

// Add appends line unless it repeats the last one or carries a secret,
// and writes the file.
func (h *History) Add(line string) error {
	if line == "" || redact.Secrets(line) != line {
		return nil
	}
	if n := len(h.lines); n > 0 && h.lines[n-1] == line {
		return nil
	}
	h.lines = append(h.lines, line)
	if len(h.lines) > maxHistory {
		h.lines = h.lines[len(h.lines)-maxHistory:]
	}
	var b strings.Builder
	for _, l := range h.lines {
		b.WriteString(strconv.Quote(l) + "\n")
	}
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, h.path)
}

// Lines returns the entries, oldest first.
func (h *History) Lines() []string { return h.lines }

// historyWalk is the Up/Down position in the history while typing.
type historyWalk struct {
	h *History
	// at is the index of the entry shown, len(lines) when none is.
	at    int
	draft string
}

func (w *historyWalk) entries() []string {
	if w.h == nil {
		return nil
	}
	return w.h.lines
}

func (w *historyWalk) add(line string) {
	if w.h != nil {
		w.h.Add(line)
	}
	w.at = len(w.entries())
}

// prev returns the entry before the one shown, keeping what was typed.
func (w *historyWalk) prev(typed string) (string, bool) {
	ls := w.entries()
	w.at = min(w.at, len(ls))
	if w.at == len(ls) {
		w.draft = typed
	}
	if w.at == 0 {
		return "", false
	}
	w.at--
	return ls[w.at], true
}

// next returns the entry after the one shown, or what was typed.
func (w *historyWalk) next() (string, bool) {
	ls := w.entries()
	if w.at >= len(ls) {
		return "", false
	}
	w.at++
	if w.at == len(ls) {
		return w.draft, true
	}
	return ls[w.at], true
}

// search returns the newest entry before the one shown that contains
// typed; pressing it again goes further back.
func (w *historyWalk) search(typed string) (string, bool) {
	ls := w.entries()
	w.at = min(w.at, len(ls))
	if w.at == len(ls) {
		w.draft = typed
	}
	for i := w.at - 1; i >= 0; i-- {
		if strings.Contains(ls[i], w.draft) {
			w.at = i
			return ls[i], true
		}
	}
	return "", false
}
