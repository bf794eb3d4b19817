package config

import (
	"fmt"
	"strings"
)

// dotenvEntry is one variable from .env and the line that set it.
type dotenvEntry struct {
	Value string
	Line  int
	// End is the last line of the entry: Line, or later for a quoted
	// value that spans lines.
	End int
	// Earlier are the lines of the entries for the same name that this
	// one overrides, [Line, End] each, so an edit can remove them all.
	Earlier [][2]int
}

// parseDotenv reads a .env file: KEY=VALUE lines, an optional "export "
// prefix, comments, blank lines, single quotes (taken literally) and
// double quotes (with \n, \t, \", \\ and \$ escapes); a quoted value may
// span lines, for PEM keys. An unquoted value ends at " #". A line that is
// none of these is an error naming file and line; the message never repeats
// the line, which may hold a secret. A variable set twice is a warning and
// the later value wins, as in a shell.
func parseDotenv(data []byte, file string) (vars map[string]dotenvEntry, warns []string, errs []error) {
	vars = map[string]dotenvEntry{}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: not a KEY=VALUE line", file, lineNo))
			continue
		}
		if !validEnvName(name) {
			errs = append(errs, fmt.Errorf("%s:%d: the name before \"=\" is not accepted; use letters, digits and _", file, lineNo))
			continue
		}
		spaced := value != "" && (value[0] == ' ' || value[0] == '\t')
		value = strings.TrimLeft(value, " \t")
		var val string
		var err error
		switch {
		case strings.HasPrefix(value, `"`):
			val, i, err = quoted(lines, i, value, '"')
		case strings.HasPrefix(value, `'`):
			val, i, err = quoted(lines, i, value, '\'')
		default:
			val = unquoted(value, spaced)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %v", file, lineNo, name, err))
			continue
		}
		e := dotenvEntry{Value: val, Line: lineNo, End: i + 1}
		if old, dup := vars[name]; dup {
			warns = append(warns, fmt.Sprintf("%s:%d: %s is set again (first on line %d); the later value wins", file, lineNo, name, old.Line))
			e.Earlier = append(old.Earlier, [2]int{old.Line, old.End})
		}
		vars[name] = e
	}
	return vars, warns, errs
}

// unquoted takes a bare value up to an inline comment: a "#" after a
// space, so that KEY=#abc keeps its "#".
func unquoted(v string, spaced bool) string {
	for j := 0; j < len(v); j++ {
		if v[j] == '#' && (j == 0 && spaced || j > 0 && (v[j-1] == ' ' || v[j-1] == '\t')) {
			v = v[:j]
			break
		}
	}
	return strings.TrimRight(v, " \t")
}

// quoted reads a value opening with q, starting in lines[i] and continuing
// over the following lines until the closing quote. It returns the value
// and the index of the line it ended on.
func quoted(lines []string, i int, first string, q byte) (string, int, error) {
	var b strings.Builder
	s := first[1:]
	for {
		for j := 0; j < len(s); j++ {
			c := s[j]
			switch {
			case c == q:
				rest := strings.TrimSpace(s[j+1:])
				if rest != "" && rest[0] != '#' {
					return "", i, fmt.Errorf("unexpected text after the closing %c", q)
				}
				return b.String(), i, nil
			case c == '\\' && q == '"' && j+1 < len(s):
				j++
				switch s[j] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				case '"', '\\', '$', '\'':
					b.WriteByte(s[j])
				default:
					b.WriteByte('\\')
					b.WriteByte(s[j])
				}
			default:
				b.WriteByte(c)
			}
		}
		i++
		if i >= len(lines) {
			return "", i, fmt.Errorf("closing %c is missing", q)
		}
		b.WriteByte('\n')
		s = lines[i]
	}
}
