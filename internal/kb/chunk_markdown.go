package kb

import "strings"

// ChunkMarkdown cuts Markdown at its ATX headings ("#" to "######"), so
// each chunk carries the path of headings above it, then packs each
// section. Lines inside fenced code blocks are never headings; text
// before the first heading has an empty heading path; a heading with no
// text under it before the next is no chunk of its own.
func ChunkMarkdown(text string, o ChunkOptions) []Chunk {
	lines := splitLines(text)
	var (
		secs  []section
		path  []string // path[i] is the heading of level i+1, "" when skipped
		cur   = section{first: 1}
		fence string
	)
	flush := func(next int) {
		// A heading with nothing under it but more headings says
		// nothing of its own: its title lives on in its children's
		// heading paths.
		if hasText(cur.lines) && !(cur.heading != "" && !hasText(cur.lines[1:])) {
			secs = append(secs, cur)
		}
		cur = section{heading: joinPath(path), first: next + 1}
	}
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "":
				fence = ""
			}
		}
		if fence == "" && len(line)-len(trimmed) < 4 {
			if level, title := atxHeading(trimmed); level > 0 {
				for len(path) < level {
					path = append(path, "")
				}
				path = append(path[:level-1], title)
				flush(i)
				cur.lines = append(cur.lines, line)
				continue
			}
		}
		cur.lines = append(cur.lines, line)
	}
	flush(len(lines))
	return packAll(secs, o)
}

// atxHeading reads "## Title ##" into (2, "Title"); level 0 when line is
// not a heading.
func atxHeading(line string) (int, string) {
	level := 0
	for level < len(line) && line[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(line) && line[level] != ' ' && line[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(line[level:])
	if t := strings.TrimRight(title, "#"); t == "" || strings.HasSuffix(t, " ") {
		title = strings.TrimSpace(t)
	}
	return level, title
}

// fenceOf is the fence a line opens or closes ("```", "~~~~"), or "".
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// joinPath joins the headings of a path, skipping levels not present.
func joinPath(path []string) string {
	var parts []string
	for _, p := range path {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " > ")
}

// hasText reports whether some line is not blank.
func hasText(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return true
		}
	}
	return false
}
