package terminal

import "strings"

// simpleCmd is one simple command of a command line: its words without
// assignments, redirections and reserved words.
type simpleCmd struct {
	words []word
	// ownStdin is set when a redirection gives the command another
	// stdin than the shell's (< file, << here-document, <<< string).
	ownStdin bool
	// subs are the command lines of substitutions anywhere in the command
	// (its words, assignments and redirection targets).
	subs []string
}

// separator reports whether an operator ends a simple command.
func separator(op string) bool {
	switch op {
	case ";", "&", "&&", "||", "|", "|&", "\n", "(", ")", ";;", ";&", ";;&":
		return true
	}
	return false
}

// leadingReserved reports whether a reserved word can stand before a
// command (if cmd; then cmd; fi).
func leadingReserved(w string) bool {
	switch w {
	case "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "!", "time", "{", "}", "coproc":
		return true
	}
	return false
}

// header reports whether a word starts a compound command whose other
// words are no command (for x in …, case … in, function f, [[ … ]]).
func header(w string) bool {
	switch w {
	case "for", "select", "case", "function", "[[":
		return true
	}
	return false
}

// simpleCommands splits tokens into simple commands.
func simpleCommands(tokens []token) []simpleCmd {
	var out []simpleCmd
	var cur simpleCmd
	flush := func() {
		if len(cur.words) > 0 || len(cur.subs) > 0 {
			out = append(out, cur)
		}
		cur = simpleCmd{}
	}
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch {
		case t.op == "":
			cur.subs = append(cur.subs, t.w.subs...)
			if len(cur.words) == 0 && (leadingReserved(t.w.raw) || isAssignment(t.w.raw)) {
				continue
			}
			cur.words = append(cur.words, t.w)
		case separator(t.op):
			flush()
		default: // a redirection: the next word is its target
			fd := ""
			if n := len(cur.words); n > 0 && isDigits(cur.words[n-1].raw) && tokens[i-1].end == t.end-len(t.op) {
				fd = cur.words[n-1].raw
				cur.words = cur.words[:n-1]
			}
			target := ""
			if i+1 < len(tokens) && tokens[i+1].op == "" {
				i++
				target = tokens[i].w.value
				cur.subs = append(cur.subs, tokens[i].w.subs...)
			}
			if (fd == "" || fd == "0") && redirectsStdin(t.op, target) {
				cur.ownStdin = true
			}
		}
	}
	flush()
	for i := range out {
		if len(out[i].words) > 0 && header(out[i].words[0].raw) {
			out[i].words = nil
		}
	}
	return out
}

// redirectsStdin reports whether a redirection on fd 0 gives the command
// something other than the shell's own stdin.
func redirectsStdin(op, target string) bool {
	switch op {
	case "<<", "<<-", "<<<":
		return true
	case "<", "<>":
		switch target {
		case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
			return false
		}
		return true
	case "<&":
		return target != "0"
	}
	return false
}

func isAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return false
	}
	name := strings.TrimSuffix(s[:i], "+")
	for j := 0; j < len(name); j++ {
		if !isNameByte(name[j]) || j == 0 && name[j] >= '0' && name[j] <= '9' {
			return false
		}
	}
	return name != ""
}

func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// settled returns the length of the longest prefix of text that holds
// only whole commands, which a shell reading text has run or is running:
// it ends at a newline outside any quote, here-document, substitution,
// compound command, group or subshell, on a line that does not go on
// with | && || or a trailing backslash. What follows it is still being
// read by the shell.
func settled(text string) int {
	lx := lexShell(text, false)
	depth, cases, last := 0, 0, 0
	cmdPos := true
	prev := "\n"
	for i := 0; i < len(lx.tokens); i++ {
		t := lx.tokens[i]
		if t.op == "" {
			if cmdPos && t.w.raw == t.w.value {
				switch t.w.raw {
				case "if", "{", "do":
					depth++
				case "case":
					depth++
					cases++
					cmdPos = false
				case "fi", "}", "done":
					depth--
					cmdPos = false
				case "esac":
					depth--
					cases--
					cmdPos = false
				case "then", "else", "elif", "!", "time", "while", "until":
				default:
					cmdPos = false
				}
			}
			prev = ""
			continue
		}
		switch t.op {
		case "(":
			if cases <= 0 {
				depth++
			}
			cmdPos = true
		case ")":
			if cases <= 0 {
				depth--
			}
			cmdPos = true
		case "\n":
			if depth <= 0 && prev != "|" && prev != "|&" && prev != "&&" && prev != "||" {
				last, depth, cases = t.end, 0, 0
			}
			cmdPos = true
		default:
			if separator(t.op) {
				cmdPos = true
			} else if i+1 < len(lx.tokens) && lx.tokens[i+1].op == "" {
				i++ // a redirection's target
			}
		}
		if t.op != "\n" {
			prev = t.op
		}
	}
	return last
}
