package shell

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns the canonical text of a shell command: the form deny
// and allow globs are matched against, and the form detection starts from.
// It undoes the spellings that make one command look like another to a
// pattern while the shell runs it the same:
//
//   - ANSI escape sequences (7-bit ESC[…, ESC]…BEL and their 8-bit C1
//     forms), NUL and other control and invisible format characters are
//     removed, so "\x1b[31mrm\x1b[0m" and "r\x00m" read "rm";
//   - Unicode is brought to NFKC, so full-width "ｒｍ" reads "rm";
//   - backslash-newline continuations are joined, CRLF becomes LF;
//   - Windows paths (C:\Users\x) are written with forward slashes;
//   - quotes and backslash escapes are dropped, so r"m", r\m and an
//     empty pair of quotes inside a word read rm;
//   - $IFS, ${IFS} and ${IFS…} become a space, as the shell splits them;
//   - letters are lower-cased;
//   - every spelling of a home directory becomes "~": $HOME, ${HOME}, ~,
//     ~user, /home/<user>, /Users/<user>, C:/Users/<user> and /root, and
//     $HERMES_HOME becomes "~/.hermes".
//
// Home folding is deliberately broad. Commands run as whichever user hermes
// runs as, and a write into any user's ~/.ssh or a delete of any user's
// home is equally serious, so the policy does not need to know which home
// is "ours". A HOME outside those places (/srv/hermes) is not folded.
//
// Dropping every quote loses the difference between a command and quoted
// data, so Classify does not match rules against this text: it lexes the
// command with its quotes (see lex.go) and applies the same word folding
// to each word. Normalize is idempotent: the steps repeat until the text
// no longer changes (a step such as NFKC can reveal work for another).
func Normalize(cmd string) string {
	s := cmd
	for range 4 {
		next := foldHomes(strings.ToLower(dropQuoting(clean(s))))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// clean performs the character-level steps of Normalize that keep the
// shell's quoting intact, so that the lexer can still tell data from code.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = stripControls(s)
	s = norm.NFKC.String(s)
	s = stripControls(s) // NFKC never produces controls; this is cheap insurance
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = joinContinuations(s)
	s = windowsSlashes(s)
	return replaceIFS(s)
}

// unusual reports whether cmd holds anything but printable ASCII, tabs
// and newlines: only then can clean and cleanShell differ.
func unusual(cmd string) bool {
	for i := 0; i < len(cmd); i++ {
		if c := cmd[i]; (c < 0x20 || c >= 0x7f) && c != '\t' && c != '\n' {
			return true
		}
	}
	return false
}

// cleanShell performs the steps of clean that the shell itself performs
// (CRLF, line continuations, $IFS) and drops NULs, which no shell
// argument can hold, but keeps escape sequences, other control and
// format characters and the text's own Unicode forms: the command as
// it runs, not as a person sees it.
func cleanShell(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = joinContinuations(s)
	s = windowsSlashes(s)
	return replaceIFS(s)
}

// stripControls removes ANSI escape sequences, C0 and C1 control
// characters other than tab and newline, DEL, and invisible format
// characters (zero-width spaces, joiners, BOM, soft hyphen). A person
// approving a command sees none of these, so detection must not either.
func stripControls(s string) string {
	if !hasControls(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b: // ESC
			i = skipEscape(s, i+n)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+n)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // OSC, DCS, SOS, PM, APC
			i = skipString(s, i+n)
			continue
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || unicode.Is(unicode.Cf, r):
			// dropped
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hasControls is the fast path of stripControls: most commands are plain
// ASCII without control characters.
func hasControls(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		if c < 0x80 {
			return true
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0xa0 || unicode.Is(unicode.Cf, r) {
			return true
		}
		i += n - 1
	}
	return false
}

// skipEscape skips the rest of an escape sequence whose ESC ends before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f { // intermediate bytes
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e { // final byte
		i++
	}
	return i
}

// skipCSI skips a control sequence's parameter, intermediate and final
// bytes.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips an OSC/DCS-style string up to and including its
// terminator: BEL, ESC \ or the 8-bit ST. An unterminated string runs to
// the end, as a terminal would swallow it.
func skipString(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x07 || r == 0x9c:
			return i + n
		case r == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i // a new sequence starts; let the caller read it
		}
		i += n
	}
	return i
}

// joinContinuations removes backslash-newline pairs where the backslash is
// not itself escaped (an odd run of backslashes before the newline), as
// the shell does before it splits words: "rm -rf \<newline>/" runs as
// "rm -rf /".
func joinContinuations(s string) string {
	if !strings.Contains(s, "\\\n") {
		return s
	}
	out := make([]byte, 0, len(s))
	run := 0 // backslashes seen in a row
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' && run%2 == 1 {
			out = out[:len(out)-1]
			run = 0
			continue
		}
		if c == '\\' {
			run++
		} else {
			run = 0
		}
		out = append(out, c)
	}
	return string(out)
}

// windowsSlashes rewrites the backslashes of drive-letter paths
// (C:\Users\x\.ssh) as single forward slashes, so that the later escape
// removal does not dissolve them to "C:Usersx.ssh" and the path rules can
// read them. Only a token that starts with a drive letter is touched;
// POSIX escapes elsewhere keep their meaning.
func windowsSlashes(s string) string {
	if !strings.Contains(s, ":\\") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && isASCIILetter(s[i]) && s[i+1] == ':' && s[i+2] == '\\' && (i == 0 || isBoundary(s[i-1])) {
			b.WriteByte(s[i])
			b.WriteByte(':')
			j := i + 2
			for j < len(s) && !isBoundary(s[j]) {
				if s[j] == '\\' {
					for j+1 < len(s) && s[j+1] == '\\' {
						j++
					}
					b.WriteByte('/')
				} else {
					b.WriteByte(s[j])
				}
				j++
			}
			i = j - 1
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// replaceIFS turns $IFS, ${IFS} and any ${IFS…} expansion into a space:
// IFS defaults to whitespace, so rm${IFS}-rf${IFS}/ runs as rm -rf /. A
// longer name such as $IFSACONFIG is another variable and stays.
func replaceIFS(s string) string {
	if !strings.Contains(s, "$IFS") && !strings.Contains(s, "${IFS") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "${IFS") {
			if end := strings.IndexByte(s[i:], '}'); end > 0 && (i+5 == i+end || !isIdent(s[i+5])) {
				b.WriteByte(' ')
				i += end
				continue
			}
		}
		if strings.HasPrefix(s[i:], "$IFS") && (i+4 == len(s) || !isIdent(s[i+4])) {
			b.WriteByte(' ')
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dropQuoting removes quote characters, backslashes and the $ of $'…'
// quoting from already-cleaned text, for Normalize. The lexer dequotes
// words properly; this flat form only has to be stable and obfuscation-free.
func dropQuoting(s string) string {
	if !strings.ContainsAny(s, "'\"\\") {
		return s
	}
	s = strings.ReplaceAll(s, "$'", "'")
	return strings.Map(func(r rune) rune {
		if r == '\'' || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}

// isBoundary reports whether c ends a shell word (whitespace, quotes and
// the metacharacters).
func isBoundary(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', ';', '|', '&', '<', '>', '(', ')':
		return true
	}
	return false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isIdent reports whether c may appear in a shell variable name.
func isIdent(c byte) bool { return c == '_' || isASCIILetter(c) || c >= '0' && c <= '9' }
