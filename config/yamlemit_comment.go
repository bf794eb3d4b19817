package config

// Comments in the emitter (see yamlemit.go). A head comment is written on
// the lines above its node, a line comment after it on its line, a foot
// comment below it; a foot comment at some indentation is followed by a
// blank line when the next thing written starts at that indentation too,
// which keeps it from reading as the next entry's head comment.

func (e *emitter) processHeadComment() {
	if e.tailComment != "" {
		e.writeIndent()
		e.writeComment(e.tailComment)
		e.tailComment = ""
		e.footIndent = max(e.indent, 0)
	}
	if e.headComment == "" {
		return
	}
	e.writeIndent()
	e.writeComment(e.headComment)
	e.headComment = ""
}

// processLineComment writes the pending line comment; with linebreak set,
// the line is ended even when there is none.
func (e *emitter) processLineComment(linebreak bool) {
	if e.lineComment == "" {
		if linebreak {
			e.putBreak()
		}
		return
	}
	if !e.whitespace {
		e.put(' ')
	}
	e.writeComment(e.lineComment)
	e.lineComment = ""
}

func (e *emitter) processFootComment() {
	if e.footComment == "" {
		return
	}
	e.writeIndent()
	e.writeComment(e.footComment)
	e.footComment = ""
	e.footIndent = max(e.indent, 0)
}

// writeComment writes a comment block, each line prefixed "# " when it
// lacks its "#", and ends the line.
func (e *emitter) writeComment(comment string) {
	breaks, pound := false, false
	for i := 0; i < len(comment); {
		if isBreakAt(comment, i) {
			i = e.writeBreak(comment, i)
			breaks, pound = true, false
			continue
		}
		if breaks {
			e.writeIndent()
		}
		if !pound {
			if comment[i] != '#' {
				e.put('#')
				e.put(' ')
			}
			pound = true
		}
		i = e.writeChar(comment, i)
		e.indention, breaks = false, false
	}
	if !breaks {
		e.putBreak()
	}
	e.whitespace = true
}
