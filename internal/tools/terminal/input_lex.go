package terminal

import "strings"

// What is written to a background process is a command when the process
// is a shell or an interpreter. Telling whether it is one, and whether a
// shell has read a whole command yet, needs the command line split the
// way bash splits it: into words and operators, with quotes, escapes,
// substitutions, comments and here-documents. lexShell does that much and
// no more; anything it cannot follow makes the answer the cautious one.

// word is one shell word.
type word struct {
	// raw is the word as written; value is the word with its quotes and
	// escapes removed (expansions stay as written).
	raw, value string
	// dynamic is set when the word's value is known only when the shell
	// runs it: a parameter, command or arithmetic expansion, a glob, a
	// brace expansion.
	dynamic bool
	// subs are the command lines inside $(…), `…`, <(…) and >(…), which
	// run with the shell's stdin.
	subs []string
}

// token is a word or an operator (; & && || | |& ( ) ;; ;& ;;& newline,
// and the redirections < > >> << <<- <<< <& >& <> >| &> &>>).
type token struct {
	op string // "" for a word
	w  word
	// end is the offset just past the token (for a newline that ends
	// here-documents, past their bodies).
	end int
}

// lexed is a text split into tokens.
type lexed struct {
	tokens []token
	// open is set when the text ends inside a quote, a substitution, a
	// here-document or after a line continuation: the shell would read
	// on before running anything of the last line.
	open bool
}

// operators, longest first so that a prefix never wins.
var operators = []string{";;&", "&>>", "<<<", "<<-", ";;", ";&", "&&", "||", "|&", "<<", "<>", "<&", ">&", ">>", ">|", "&>",
	";", "&", "|", "(", ")", "<", ">", "\n"}

// lexShell splits src into tokens. whole is set when src is all there
// is, as a command line given to sh -c is: its end then also ends a
// here-document, as it does for the shell. Input a shell is still reading
// is not whole.
func lexShell(src string, whole bool) lexed {
	l := &lexer{src: src, whole: whole}
	l.run()
	return lexed{tokens: l.tokens, open: l.open}
}

type lexer struct {
	src    string
	whole  bool
	i      int
	tokens []token
	open   bool
	// heredocs are the delimiters of here-documents whose bodies start
	// after the next newline; strip is set for <<-.
	heredocs []heredoc
}

type heredoc struct {
	delim string
	strip bool
}

func (l *lexer) run() {
	for l.i < len(l.src) && !l.open {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t':
			l.i++
		case c == '\\' && l.i+1 < len(l.src) && l.src[l.i+1] == '\n':
			l.i += 2
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
		case (c == '<' || c == '>') && l.i+1 < len(l.src) && l.src[l.i+1] == '(':
			l.word() // a process substitution is a word
		case strings.IndexByte(";&|()<>\n", c) >= 0:
			l.operator()
		default:
			l.word()
		}
	}
	if len(l.heredocs) > 0 && !l.whole {
		l.open = true // a here-document whose body has not started
	}
}

// operator reads one operator; a newline also reads the bodies of the
// here-documents started on its line.
func (l *lexer) operator() {
	for _, op := range operators {
		if !strings.HasPrefix(l.src[l.i:], op) {
			continue
		}
		l.i += len(op)
		if op == "\n" {
			if l.bodies(); l.open {
				return // the newline ends nothing while a body is unread
			}
		}
		l.tokens = append(l.tokens, token{op: op, end: l.i})
		if op == "<<" || op == "<<-" {
			l.skipBlanks()
			start := len(l.tokens)
			l.word()
			if len(l.tokens) > start {
				d := l.tokens[len(l.tokens)-1].w
				l.heredocs = append(l.heredocs, heredoc{delim: d.value, strip: op == "<<-"})
			}
		}
		return
	}
}

func (l *lexer) skipBlanks() {
	for l.i < len(l.src) && (l.src[l.i] == ' ' || l.src[l.i] == '\t') {
		l.i++
	}
}

// bodies skips the bodies of pending here-documents, each up to its
// delimiter line.
func (l *lexer) bodies() {
	for _, h := range l.heredocs {
		for {
			if l.i >= len(l.src) {
				l.open = !l.whole
				l.heredocs = nil
				return
			}
			end := strings.IndexByte(l.src[l.i:], '\n')
			line := l.src[l.i:]
			if end >= 0 {
				line = line[:end]
			}
			if h.strip {
				line = strings.TrimLeft(line, "\t")
			}
			if end < 0 {
				// The delimiter must end its line for a shell that
				// reads on to know the document is over.
				l.i = len(l.src)
				l.open = !l.whole
				l.heredocs = nil
				return
			}
			l.i += end + 1
			if line == h.delim {
				break
			}
		}
	}
	l.heredocs = nil
}

// word reads one word, up to an unquoted blank or operator.
func (l *lexer) word() {
	start := l.i
	var val strings.Builder
	w := word{}
	for l.i < len(l.src) && !l.open {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || (strings.IndexByte(";&|()<>", c) >= 0 && !l.procSubst()):
			l.finish(&w, start, &val)
			return
		case c == '\\':
			if l.i+1 >= len(l.src) {
				l.open = true
				return
			}
			if l.src[l.i+1] != '\n' {
				val.WriteByte(l.src[l.i+1])
			}
			l.i += 2
		case c == '\'':
			end := strings.IndexByte(l.src[l.i+1:], '\'')
			if end < 0 {
				l.open = true
				return
			}
			val.WriteString(l.src[l.i+1 : l.i+1+end])
			l.i += end + 2
		case c == '"':
			l.double(&w, &val)
		case c == '$' || c == '`' || c == '<' || c == '>':
			l.expansion(&w, &val)
		case c == '*' || c == '?' || c == '[' || c == '{' || c == '}' && l.i > start:
			w.dynamic = true
			val.WriteByte(c)
			l.i++
		default:
			val.WriteByte(c)
			l.i++
		}
	}
	if !l.open {
		l.finish(&w, start, &val)
	}
}

// procSubst reports whether the shell reads <( or >( here.
func (l *lexer) procSubst() bool {
	c := l.src[l.i]
	return (c == '<' || c == '>') && l.i+1 < len(l.src) && l.src[l.i+1] == '('
}

func (l *lexer) finish(w *word, start int, val *strings.Builder) {
	w.raw, w.value = l.src[start:l.i], val.String()
	// These alone are reserved words or the test command, not a brace
	// expansion or a glob.
	switch w.raw {
	case "{", "}", "[", "[[", "]", "]]":
		w.dynamic = false
	}
	l.tokens = append(l.tokens, token{w: *w, end: l.i})
}

// double reads a double-quoted part of a word.
func (l *lexer) double(w *word, val *strings.Builder) {
	l.i++
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == '"':
			l.i++
			return
		case c == '\\' && l.i+1 < len(l.src):
			if strings.IndexByte("$`\"\\", l.src[l.i+1]) >= 0 {
				val.WriteByte(l.src[l.i+1])
			} else if l.src[l.i+1] != '\n' {
				val.WriteString(l.src[l.i : l.i+2])
			}
			l.i += 2
		case c == '$' || c == '`':
			l.expansion(w, val)
			if l.open {
				return
			}
		default:
			val.WriteByte(c)
			l.i++
		}
	}
	l.open = true
}
