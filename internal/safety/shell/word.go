package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// word reads one shell word at the current position: quotes and escapes
// are removed, substitutions parsed, and the word ends at an unquoted blank
// or metacharacter.
func (p *parser) word() word {
	var w word
	var b strings.Builder
	start := p.pos
	if c := p.peek(0); (c == '<' || c == '>') && p.peek(1) == '(' {
		p.pos += 2
		w.subs = append(w.subs, p.substitution())
		w.proc = true
		w.raw = p.src[start:p.pos]
		w.text = strings.ToLower(w.raw)
		return w
	}
	for p.pos < len(p.src) && !*p.tooDeep {
		c := p.src[p.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>' {
			break
		}
		switch c {
		case '\\':
			w.quoted = true
			p.pos++
			if p.pos < len(p.src) {
				b.WriteByte(p.src[p.pos])
				p.pos++
			}
		case '\'':
			w.quoted = true
			end := strings.IndexByte(p.src[p.pos+1:], '\'')
			if end < 0 {
				end = len(p.src) - p.pos - 1
			}
			b.WriteString(p.src[p.pos+1 : p.pos+1+end])
			p.pos = min(p.pos+2+end, len(p.src))
		case '"':
			w.quoted = true
			p.pos++
			p.quotedText(&b, &w, '"')
		case '`':
			w.splits = true
			p.backtick(&b, &w)
		case '$':
			p.dollar(&b, &w, false)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	w.raw = b.String()
	w.text = foldHomes(strings.ToLower(w.raw))
	return w
}

// quotedText reads double-quoted text (or an expanded here-document body
// when term is 0) up to term, which it consumes. Only $, ` and \ keep a
// special meaning there.
func (p *parser) quotedText(b *strings.Builder, w *word, term byte) {
	for p.pos < len(p.src) && !*p.tooDeep {
		c := p.src[p.pos]
		switch {
		case c == term:
			p.pos++
			return
		case c == '\\':
			next := p.peek(1)
			if next == '$' || next == '`' || next == '"' && term == '"' || next == '\\' {
				b.WriteByte(next)
				p.pos += 2
				continue
			}
			b.WriteByte(c)
			p.pos++
		case c == '`':
			p.backtick(b, w)
		case c == '$':
			p.dollar(b, w, true)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

// dollar reads an expansion that starts with $: a command substitution,
// arithmetic, a parameter expansion, ANSI-C or locale quoting, or a plain
// variable (kept as written).
func (p *parser) dollar(b *strings.Builder, w *word, inQuotes bool) {
	start := p.pos
	switch next := p.peek(1); {
	case next == '(' && p.peek(2) == '(':
		w.expands = true
		p.pos += 3
		for depth := 2; p.pos < len(p.src) && depth > 0; p.pos++ {
			switch p.src[p.pos] {
			case '(':
				depth++
			case ')':
				depth--
			}
		}
		b.WriteString(p.src[start:p.pos])
	case next == '(':
		w.splits, w.expands = w.splits || !inQuotes, true
		p.pos += 2
		sc := p.substitution()
		w.subs = append(w.subs, sc)
		p.writeOutput(b, w, sc, p.src[start:p.pos])
	case next == '{':
		end := matchBrace(p.src, p.pos+2)
		expr := p.src[p.pos+2 : end]
		p.pos = min(end+1, len(p.src))
		w.splits = w.splits || !inQuotes || expr == "@" || strings.HasSuffix(expr, "[@]")
		w.expands = true
		value, code := expandParam(expr)
		if code != "" { // a default value may hold substitutions of its own
			child := p.child(code)
			var ignored strings.Builder
			child.quotedText(&ignored, w, 0)
		}
		b.WriteString(value)
	case next == '\'' && !inQuotes:
		w.quoted = true
		p.pos += 2
		b.WriteString(p.ansiC())
	case next == '"' && !inQuotes:
		w.quoted = true
		p.pos += 2
		p.quotedText(b, w, '"')
	default:
		if isIdent(next) || next == '@' || next == '*' || next == '#' || next == '?' || next == '$' || next == '!' {
			w.splits = w.splits || !inQuotes || next == '@'
			w.expands = true
		}
		b.WriteByte('$')
		p.pos++
	}
}

// substitution parses the body of $( … ) or <( … ), the position being
// just after the opening parenthesis, and leaves the position after the
// closing one.
func (p *parser) substitution() *script {
	c := p.child("")
	if *p.tooDeep {
		p.pos = len(p.src)
		return &script{}
	}
	c.src, c.pos = p.src, p.pos
	sc := c.list(true)
	p.pos = c.pos
	return sc
}

// backtick reads a `…` substitution. Inside it a backslash escapes only
// $, ` and \, which are unescaped before the body is parsed.
func (p *parser) backtick(b *strings.Builder, w *word) {
	w.expands = true
	i := p.pos + 1
	for i < len(p.src) && p.src[i] != '`' {
		if p.src[i] == '\\' {
			i++
		}
		i++
	}
	i = min(i, len(p.src))
	body := p.src[p.pos+1 : i]
	source := p.src[p.pos:min(i+1, len(p.src))]
	p.pos = min(i+1, len(p.src))
	body = strings.NewReplacer("\\\\", "\\", "\\`", "`", "\\$", "$").Replace(body)
	c := p.child(body)
	sc := c.list(false)
	w.subs = append(w.subs, sc)
	p.writeOutput(b, w, sc, source)
}

// writeOutput writes what the substitution sc prints, when that is known
// text, and else its source, which it notes as pending.
func (p *parser) writeOutput(b *strings.Builder, w *word, sc *script, source string) {
	out := staticOutput(sc, source)
	if out == source {
		w.pending = append(w.pending, pendingSub{source: source, sc: sc})
	}
	b.WriteString(out)
}

// ansiC decodes the body of $'…' up to its closing quote. The decoded text
// is normalized like the rest of the command, so $'\x1b[0m' hides nothing
// and $'\uff52' reads as the letter it looks like.
func (p *parser) ansiC() string {
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		if c == '\'' {
			break
		}
		if c != '\\' || p.pos >= len(p.src) {
			b.WriteByte(c)
			continue
		}
		e := p.src[p.pos]
		p.pos++
		if ch, ok := letterEscape(e); ok {
			b.WriteByte(ch)
			continue
		}
		switch e {
		case 'x', 'u', 'U', '0', '1', '2', '3', '4', '5', '6', '7':
			b.WriteRune(p.numericEscape(e))
		case 'c':
			if p.pos < len(p.src) {
				b.WriteByte(p.src[p.pos] & 0x1f)
				p.pos++
			}
		default:
			b.WriteByte(e)
		}
	}
	return norm.NFKC.String(stripControls(b.String()))
}

// numericEscape decodes the digits of an \xHH, \uHHHH, \UHHHHHHHH or \NNN
// escape whose letter (or first octal digit) is e.
func (p *parser) numericEscape(e byte) rune {
	base, maxDigits, start := 16, 2, p.pos
	switch e {
	case 'u':
		maxDigits = 4
	case 'U':
		maxDigits = 8
	case 'x':
	default:
		base, maxDigits, start = 8, 3, p.pos-1
	}
	end := start
	for end < len(p.src) && end-start < maxDigits && strings.IndexByte("0123456789abcdefABCDEF"[:base+max(base-10, 0)], p.src[end]) >= 0 {
		end++
	}
	p.pos = max(end, p.pos)
	v, err := strconv.ParseUint(p.src[start:end], base, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return utf8.RuneError
	}
	return rune(v)
}

// matchBrace returns the index of the } closing a ${ whose body starts at
// i, or len(s) when there is none.
func matchBrace(s string, i int) int {
	for depth := 1; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		case '\\':
			i++
		}
	}
	return len(s)
}
