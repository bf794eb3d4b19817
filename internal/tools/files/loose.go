package files

import (
	"github.com/hermes-go/hermes/internal/udiff"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

// lineNumberPrefix matches read_file's "N|" prefix, which models sometimes
// copy into old_string.
var lineNumberPrefix = lazy.Regexp{Expr: `^\s*\d+\|`}

// replaceLoose finds old in content line by line, comparing lines with
// leading and trailing whitespace removed, so a wrong indentation, tabs
// against spaces, or trailing blanks do not defeat an otherwise correct
// edit. Matched lines are replaced whole; new is re-indented by the
// difference between the file's indentation and old's, and written with
// the file's line endings.
func replaceLoose(content, old, new string, all bool) (string, int, error) {
	oldN := strings.ReplaceAll(old, "\r\n", "\n")
	newN := strings.ReplaceAll(new, "\r\n", "\n")
	if strings.HasSuffix(oldN, "\n") {
		oldN = strings.TrimSuffix(oldN, "\n")
		newN = strings.TrimSuffix(newN, "\n")
	}
	oldLines := strings.Split(oldN, "\n")
	keys := make([]string, len(oldLines))
	blank := true
	for i, l := range oldLines {
		keys[i] = strings.TrimSpace(l)
		blank = blank && keys[i] == ""
	}
	if blank {
		return "", 0, notMatched(oldLines)
	}
	lines := udiff.SplitLines(content)
	fileKeys := make([]string, len(lines))
	for i, l := range lines {
		fileKeys[i] = strings.TrimSpace(l)
	}
	var starts []int
	for i := 0; i+len(keys) <= len(lines); i++ {
		ok := true
		for j, k := range keys {
			if fileKeys[i+j] != k {
				ok = false
				break
			}
		}
		if ok {
			starts = append(starts, i)
			i += len(keys) - 1 // matches do not overlap
		}
	}
	switch {
	case len(starts) == 0:
		return "", 0, notMatched(oldLines)
	case len(starts) > 1 && !all:
		at := make([]int, 0, 10)
		for _, s := range starts[:min(len(starts), 10)] {
			at = append(at, s+1)
		}
		return "", 0, ambiguous(len(starts), at)
	}

	var b strings.Builder
	prev := 0
	for _, s := range starts {
		for _, l := range lines[prev:s] {
			b.WriteString(l)
		}
		region := lines[s : s+len(keys)]
		b.WriteString(replacement(region, oldLines, newN, content))
		prev = s + len(keys)
	}
	for _, l := range lines[prev:] {
		b.WriteString(l)
	}
	return b.String(), len(starts), nil
}

// replacement is the text that takes the place of the region's lines.
func replacement(region, oldLines []string, newN, content string) string {
	if newN == "" {
		return "" // deletion removes the lines with their line endings
	}
	eol := "\n"
	if strings.HasSuffix(region[0], "\r\n") || (!strings.HasSuffix(region[0], "\n") && strings.Contains(content, "\r\n")) {
		eol = "\r\n"
	}
	last := region[len(region)-1]
	term := last[len(strings.TrimRight(last, "\r\n")):]

	// Each indentation used in old maps to the one of the file line it
	// matched; new lines with that indentation get the file's. Other new
	// lines are shifted by the difference at the first non-blank line.
	indent := map[string]string{}
	var oldInd, fileInd string
	first := true
	for i, l := range oldLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		o, f := leadingSpace(l), leadingSpace(region[i])
		if _, seen := indent[o]; !seen {
			indent[o] = f
		}
		if first {
			oldInd, fileInd, first = o, f, false
		}
	}
	newLines := strings.Split(newN, "\n")
	for i, l := range newLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := leadingSpace(l)
		if f, ok := indent[ind]; ok {
			newLines[i] = f + l[len(ind):]
		} else if strings.HasPrefix(l, oldInd) {
			newLines[i] = fileInd + l[len(oldInd):]
		}
	}
	return strings.Join(newLines, eol) + term
}

func leadingSpace(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// notMatched is the error for an old_string found nowhere. It points out
// copied line-number prefixes, the most common cause after stale content.
func notMatched(oldLines []string) error {
	hint := "read the file again with read_file and copy the text exactly"
	prefixed := 0
	for _, l := range oldLines {
		if lineNumberPrefix.Get().MatchString(l) {
			prefixed++
		}
	}
	if prefixed > 0 && prefixed*2 >= len(oldLines) {
		hint = "old_string seems to include read_file's \"N|\" line-number prefixes, which are not part of the file; remove them"
	}
	return tool.Errorf(tool.CodeInvalidArguments, "old_string was not found in the file, not even ignoring whitespace; nothing was changed. %s", hint)
}
