package shell

import "strings"

// The lexer reads a cleaned command into simple commands the way a POSIX
// shell would, without expanding anything: it splits on the control
// operators, removes quotes, keeps redirections apart from arguments,
// reads here-documents, and parses every command substitution, backtick
// and process substitution as a script of its own. What it does not do
// is execute or guess: a variable stays "$name", a glob stays a glob.
//
// It never fails. Unterminated quotes and substitutions run to the end of
// the input, which is what a shell reading the same text would have to do
// before reporting the error, so nothing after them can hide.

// word is one shell word with its quoting removed.
type word struct {
	// raw is the value after quote removal, in its original letter case.
	// A command substitution whose output is a plain literal ($(echo rm))
	// contributes that literal; any other contributes its source text.
	raw string
	// text is raw lower-cased with home directories folded (see
	// foldHomes): the form rules read.
	text string
	// quoted is set when any part of the word was quoted or escaped.
	quoted bool
	// splits is set when an unquoted expansion ($x, ${x}, $(…), `…`) or a
	// quoted "$@" contributed to the word: the shell splits what it
	// expands into further words, which raw alone does not show.
	splits bool
	// expands is set when any expansion, quoted or not, contributed to
	// the word; its raw text then holds what the lexer could not expand
	// ($x, ${x%y}, the source of a substitution) as written.
	expands bool
	// subs are the command and process substitutions in the word.
	subs []*script
	// pending are the substitutions whose output the lexer could not
	// know: each stands in raw as its source text, until the analysis
	// knows the variables it reads.
	pending []pendingSub
	// proc is set when the word is a process substitution, <(…) or >(…).
	proc bool
}

// pendingSub is a command substitution left in a word's raw text as
// written.
type pendingSub struct {
	source string
	sc     *script
}

// redirect is one redirection of a simple command.
type redirect struct {
	// op is the operator: >, >>, >|, &>, &>>, <, <>, <<, <<-, <<<, >&, <&.
	op     string
	target word
}

// command is one simple command.
type command struct {
	words  []word
	redirs []redirect
	// stdin is the text a here-document or here-string feeds the command.
	stdin *word
	// sep is the operator that ended the command: ; & && || | |& ( ) ;;
	// or a newline, and "" at the end of the input.
	sep string
	// src is the command's own text in its script, from its first word or
	// redirection to its last: what a person is shown as the part of a
	// command that matched a rule.
	src string
	// level is how many subshell parentheses enclose the command; a cd
	// inside them does not change the directory of what follows.
	level int
}

// script is a list of simple commands: the whole input, or the body of a
// substitution, a here-document read by a shell, or a shell -c payload.
type script struct {
	src   string
	cmds  []*command
	depth int
	// dirs are the directories the script starts in (none when unknown):
	// a payload runs where the command that runs it does.
	dirs []string
}

// maxDepth bounds how deeply substitutions and payloads may nest before
// the command is reported as too complex to inspect.
const maxDepth = 24

// parser is the state of one lexing pass over src.
type parser struct {
	src   string
	pos   int
	depth int
	// tooDeep is shared by a parser and its children: set once nesting
	// passes maxDepth, after which parsing stops.
	tooDeep *bool
}

// heredoc is a here-document waiting for its body after the next newline.
type heredoc struct {
	cmd    *command
	delim  string
	quoted bool
	strip  bool
}

// parseScript lexes src, a cleaned command, at the given nesting depth.
// It reports false when nesting went past maxDepth.
func parseScript(src string, depth int) (*script, bool) {
	tooDeep := false
	p := &parser{src: src, depth: depth, tooDeep: &tooDeep}
	sc := p.list(false)
	return sc, !tooDeep
}

// peek returns the byte k places ahead, or 0 past the end.
func (p *parser) peek(k int) byte {
	if p.pos+k < len(p.src) {
		return p.src[p.pos+k]
	}
	return 0
}

// list reads commands until the end of the input or, inside a $( … )
// substitution, until its closing parenthesis.
func (p *parser) list(inSubst bool) *script {
	start := p.pos
	sc := &script{depth: p.depth}
	cur := &command{}
	var docs []heredoc
	parens := 0
	first, last := -1, 0 // where the current command's text starts and ends
	end := func(sep string) {
		if len(cur.words) > 0 || len(cur.redirs) > 0 || cur.stdin != nil {
			cur.sep = sep
			if first >= 0 {
				cur.src = p.src[first:last]
			}
			sc.cmds = append(sc.cmds, cur)
			cur = &command{}
		}
		first = -1
	}
	// mark records that a word or redirection of cur spans [from, p.pos).
	mark := func(from int) {
		if first < 0 {
			first, cur.level = from, parens
		}
		last = p.pos
	}
	for p.pos < len(p.src) && !*p.tooDeep {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '\n':
			p.pos++
			end("\n")
			for _, d := range docs {
				p.readHeredoc(d)
			}
			docs = docs[:0]
		case c == ';':
			op := p.operator(";;&", ";;", ";&", ";")
			end(op)
		case c == '&' && p.peek(1) == '>':
			from := p.pos
			docs = p.redirect(cur, docs)
			mark(from)
		case c == '&' || c == '|':
			end(p.operator("&&", "||", "|&", "&", "|"))
		case c == '(' && p.arrayAssignment(cur, last):
			last = p.pos
		case c == '(':
			p.pos++
			if len(cur.words) == 1 && len(cur.redirs) == 0 && p.skipBlanks() && p.peek(0) == ')' {
				p.pos++ // name() { … }: a function definition, not a command
				cur, first = &command{}, -1
				continue
			}
			parens++
			end("(")
		case c == ')':
			p.pos++
			if inSubst && parens == 0 {
				end(")")
				sc.src = p.src[start:p.pos]
				return sc
			}
			parens = max(parens-1, 0)
			end(")")
		case (c == '<' || c == '>') && p.peek(1) != '(':
			from := p.pos
			docs = p.redirect(cur, docs)
			mark(from)
		default:
			from := p.pos
			w := p.word()
			if !w.quoted && len(w.subs) == 0 && isDigits(w.raw) && (p.peek(0) == '<' || p.peek(0) == '>') && p.peek(1) != '(' {
				mark(from)
				continue // an io number such as the 2 of 2>&1
			}
			cur.words = append(cur.words, w)
			mark(from)
		}
	}
	end("")
	for _, d := range docs { // a here-document on the last line has no body
		d.cmd.stdin = &word{}
	}
	sc.src = p.src[start:p.pos]
	return sc
}

// arrayAssignment reads the ( … ) of an array assignment, NAME=(a b c),
// when the parenthesis follows such a word directly: its elements become
// the word's value, separated by blanks, which ${NAME[i]} picks apart.
// It reports false, reading nothing, for any other parenthesis.
func (p *parser) arrayAssignment(cur *command, last int) bool {
	n := len(cur.words)
	if n == 0 || last != p.pos || !strings.HasSuffix(cur.words[n-1].raw, "=") || !isAssignment(cur.words[n-1].raw) {
		return false
	}
	w := &cur.words[n-1]
	p.pos++
	var elems []string
	for p.pos < len(p.src) && !*p.tooDeep {
		for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
			p.pos++
		}
		if p.peek(0) == ')' {
			p.pos++
			break
		}
		if p.pos >= len(p.src) {
			break
		}
		if isBoundary(p.src[p.pos]) && p.src[p.pos] != '\'' && p.src[p.pos] != '"' && p.src[p.pos] != '`' {
			p.pos++ // an operator cannot stand in a list; skip it
			continue
		}
		e := p.word()
		elems = append(elems, e.raw)
		w.subs = append(w.subs, e.subs...)
		w.pending = append(w.pending, e.pending...)
		w.expands = w.expands || e.expands
	}
	w.raw += strings.Join(elems, " ")
	w.text = foldHomes(strings.ToLower(w.raw))
	return true
}

// skipBlanks skips spaces and tabs; it always reports true, for use in
// conditions.
func (p *parser) skipBlanks() bool {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	return true
}

// operator consumes the first of ops found at the current position.
func (p *parser) operator(ops ...string) string {
	for _, op := range ops {
		if strings.HasPrefix(p.src[p.pos:], op) {
			p.pos += len(op)
			return op
		}
	}
	p.pos++
	return p.src[p.pos-1 : p.pos]
}

// redirect reads a redirection operator and its target into cur. A
// here-document's delimiter is queued in docs until the next newline.
func (p *parser) redirect(cur *command, docs []heredoc) []heredoc {
	op := p.operator("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">&", ">|", ">")
	p.skipBlanks()
	var target word
	if p.pos < len(p.src) && !isBoundary(p.src[p.pos]) || p.peek(0) == '\'' || p.peek(0) == '"' || p.peek(0) == '`' {
		target = p.word()
	} else if (p.peek(0) == '<' || p.peek(0) == '>') && p.peek(1) == '(' {
		target = p.word()
	}
	cur.redirs = append(cur.redirs, redirect{op: op, target: target})
	switch op {
	case "<<", "<<-":
		docs = append(docs, heredoc{cmd: cur, delim: target.raw, quoted: target.quoted, strip: op == "<<-"})
	case "<<<":
		w := target
		cur.stdin = &w
	}
	return docs
}

// readHeredoc reads the body of d, up to its delimiter line, and gives it
// to d's command as stdin. An unquoted delimiter means the body is
// expanded, so its substitutions are parsed.
func (p *parser) readHeredoc(d heredoc) {
	var body strings.Builder
	for p.pos < len(p.src) {
		nl := strings.IndexByte(p.src[p.pos:], '\n')
		line := p.src[p.pos:]
		if nl >= 0 {
			line = line[:nl]
		}
		p.pos += len(line)
		if nl >= 0 {
			p.pos++
		}
		check := line
		if d.strip {
			check = strings.TrimLeft(line, "\t")
		}
		if check == d.delim {
			break
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	w := word{raw: body.String(), quoted: true}
	if !d.quoted {
		child := p.child(w.raw)
		var b strings.Builder
		child.quotedText(&b, &w, 0)
		w.raw = b.String()
	}
	w.text = foldHomes(strings.ToLower(w.raw))
	d.cmd.stdin = &w
}

// child returns a parser over src one nesting level down, sharing the
// depth guard.
func (p *parser) child(src string) *parser {
	c := &parser{src: src, depth: p.depth + 1, tooDeep: p.tooDeep}
	if c.depth > maxDepth {
		*p.tooDeep = true
		c.src = ""
	}
	return c
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
