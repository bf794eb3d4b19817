package files

import (
	"bytes"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8 << 10

// isBinary reports whether head, the start of a file, looks binary: it
// holds a NUL byte or is not valid UTF-8. A rune cut off by the end of
// head does not count.
func isBinary(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	if len(head) < sniffLen {
		return true // the whole file was read, so nothing was cut off
	}
	for cut := 1; cut <= utf8.UTFMax-1 && cut < len(head); cut++ {
		if utf8.Valid(head[:len(head)-cut]) {
			return false
		}
	}
	return true
}

// guessMIME names a file's likely type from its extension, or else from
// its first bytes.
func guessMIME(p string, head []byte) string {
	if t := mime.TypeByExtension(filepath.Ext(p)); t != "" {
		return t
	}
	return http.DetectContentType(head)
}

// notFound is the error for a missing file: it suggests up to three names
// in the same directory that look like the one asked for, since a wrong
// case or a typo is the usual cause.
func notFound(p string) error {
	dir := filepath.Dir(p)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return tool.Errorf(tool.CodeNotFound, "%s does not exist (nor does its directory %s); search for the file with search_files (target \"files\")", p, dir)
	}
	names := make([]string, len(entries))
	dirs := make([]bool, len(entries))
	for i, e := range entries {
		names[i], dirs[i] = e.Name(), e.IsDir()
	}
	return suggest(p, dir, names, dirs)
}

// suggest is the not-found error for p given the entries of its directory
// dir (names, and whether each is a directory).
func suggest(p, dir string, names []string, dirs []bool) error {
	base := filepath.Base(p)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	lb := strings.ToLower(base)
	for i, name := range names {
		ln := strings.ToLower(name)
		d := editDistance(lb, ln)
		switch {
		case ln == lb:
			d = 0
		case strings.TrimSuffix(ln, filepath.Ext(ln)) == strings.TrimSuffix(lb, filepath.Ext(lb)):
			d = min(d, 1) // same stem, other extension
		case len(lb) >= 3 && (strings.Contains(ln, lb) || strings.Contains(lb, ln) && len(ln) >= 3):
			d = min(d, 2)
		}
		if d <= max(2, len([]rune(lb))/3) {
			if dirs[i] {
				name += "/"
			}
			cands = append(cands, cand{name, d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	if len(cands) == 0 {
		return tool.Errorf(tool.CodeNotFound, "%s does not exist; nothing similar is in %s. Search for it with search_files (target \"files\")", p, dir)
	}
	var similar []string
	for i := 0; i < len(cands) && i < 3; i++ {
		similar = append(similar, filepath.Join(dir, cands[i].name))
	}
	return tool.Errorf(tool.CodeNotFound, "%s does not exist. Did you mean: %s", p, strings.Join(similar, ", "))
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
