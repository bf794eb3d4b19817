package config

// Block collections, nodes, comments and the low-level writers of the
// emitter (see yamlemit.go).

func (e *emitter) blockSeqItem(ev *event, first bool) {
	if first {
		e.increaseIndent(false)
	}
	if ev.kind == seqEndEvent {
		e.popIndent()
		e.state = e.pop()
		return
	}
	e.processHeadComment()
	e.writeIndent()
	e.writeIndicator("-", true, false, true)
	e.push(blockSeqState)
	e.node(ev, false, true, false, false)
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) blockMapKey(ev *event, first bool) {
	if first {
		e.increaseIndent(false)
	}
	e.processHeadComment()
	if ev.kind == mapEndEvent {
		e.popIndent()
		e.state = e.pop()
		return
	}
	e.writeIndent()
	if e.lineComment != "" {
		// A comment on a key's line is kept until its value is known:
		// a scalar takes it, a block below gets it written right away.
		e.keyLineComment, e.lineComment = e.lineComment, ""
	}
	if e.simpleKey() {
		e.push(blockMapSimpleValueState)
		e.node(ev, false, false, true, true)
		return
	}
	e.writeIndicator("?", true, false, true)
	e.push(blockMapValueState)
	e.node(ev, false, false, true, false)
}

func (e *emitter) blockMapValue(ev *event, simple bool) {
	if simple {
		e.writeIndicator(":", false, false, false)
	} else {
		e.writeIndent()
		e.writeIndicator(":", true, false, true)
	}
	if e.keyLineComment != "" {
		switch {
		case ev.kind == scalarEvent:
			if e.lineComment == "" {
				e.lineComment, e.keyLineComment = e.keyLineComment, ""
			}
		case !ev.flow && (ev.kind == mapStartEvent || ev.kind == seqStartEvent):
			e.lineComment, e.keyLineComment = e.keyLineComment, e.lineComment
			e.processLineComment(false)
			e.lineComment, e.keyLineComment = e.keyLineComment, e.lineComment
		}
	}
	e.push(blockMapKeyState)
	e.node(ev, false, false, true, false)
	e.processLineComment(false)
	e.processFootComment()
}

// node starts writing the node whose first event is ev, in the given
// context.
func (e *emitter) node(ev *event, root, seq, mapping, simpleKey bool) {
	e.rootCtx, e.seqCtx, e.mapCtx, e.simpleKeyCtx = root, seq, mapping, simpleKey
	switch ev.kind {
	case aliasEvent:
		e.processAnchor()
		e.state = e.pop()
	case scalarEvent:
		e.selectScalarStyle(ev)
		e.processAnchor()
		e.processTag()
		e.increaseIndent(true)
		e.processScalar()
		e.popIndent()
		e.state = e.pop()
	case seqStartEvent:
		e.processAnchor()
		e.processTag()
		if e.flowLevel > 0 || ev.flow || e.emptyCollection(seqStartEvent, seqEndEvent) {
			e.state = flowSeqFirstState
		} else {
			e.state = blockSeqFirstState
		}
	case mapStartEvent:
		e.processAnchor()
		e.processTag()
		if e.flowLevel > 0 || ev.flow || e.emptyCollection(mapStartEvent, mapEndEvent) {
			e.state = flowMapFirstKeyState
		} else {
			e.state = blockMapFirstKeyState
		}
	default:
		panic(emitError("expected SCALAR, SEQUENCE-START, MAPPING-START, or ALIAS"))
	}
}

// emptyCollection reports whether the current event opens a collection
// that the next event closes.
func (e *emitter) emptyCollection(start, end eventKind) bool {
	return e.cur+1 < len(e.evs) && e.evs[e.cur].kind == start && e.evs[e.cur+1].kind == end
}

// simpleKey reports whether the current node can be written as a key on
// its own line: one line, not a non-empty collection, and short.
func (e *emitter) simpleKey() bool {
	ev := &e.evs[e.cur]
	length := len(e.anchor) + len(e.tagHandle) + len(e.tagSuffix)
	switch ev.kind {
	case aliasEvent:
	case scalarEvent:
		if e.scalar.multiline {
			return false
		}
		length += len(e.scalar.value)
	case seqStartEvent:
		if !e.emptyCollection(seqStartEvent, seqEndEvent) {
			return false
		}
	case mapStartEvent:
		if !e.emptyCollection(mapStartEvent, mapEndEvent) {
			return false
		}
	default:
		return false
	}
	return length <= 128
}

func (e *emitter) processAnchor() {
	if e.anchor == "" {
		return
	}
	c := "&"
	if e.alias {
		c = "*"
	}
	e.writeIndicator(c, true, false, false)
	e.writeRaw(e.anchor)
	e.whitespace, e.indention = false, false
}

func (e *emitter) processTag() {
	if e.tagHandle == "" && e.tagSuffix == "" {
		return
	}
	if e.tagHandle != "" {
		if !e.whitespace {
			e.put(' ')
		}
		e.writeRaw(e.tagHandle)
		e.whitespace, e.indention = false, false
		if e.tagSuffix != "" {
			e.writeTagContent(e.tagSuffix)
		}
		return
	}
	e.writeIndicator("!<", true, false, false)
	e.writeTagContent(e.tagSuffix)
	e.writeIndicator(">", false, false, false)
}

// writeIndent starts a new line at the current indentation, unless the
// output already stands there; a line is left blank after a foot comment
// at the same indentation.
func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.putBreak()
	}
	if e.footIndent == indent {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace = true
	e.footIndent = -1
}

func (e *emitter) writeIndicator(ind string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.writeRaw(ind)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

func (e *emitter) put(c byte) {
	e.buf = append(e.buf, c)
	e.column++
}

func (e *emitter) putBreak() {
	e.buf = append(e.buf, '\n')
	e.column = 0
	e.indention = true
}

// writeRaw writes s, counting columns in characters.
func (e *emitter) writeRaw(s string) {
	for i := 0; i < len(s); {
		i = e.writeChar(s, i)
	}
}

// writeChar writes the character at s[i] and returns the index after it.
func (e *emitter) writeChar(s string, i int) int {
	w := max(charWidth(s[i]), 1)
	e.buf = append(e.buf, s[i:min(i+w, len(s))]...)
	e.column++
	return i + w
}

// writeBreak writes the line break at s[i] and returns the index after it.
func (e *emitter) writeBreak(s string, i int) int {
	if s[i] == '\n' {
		e.putBreak()
		return i + 1
	}
	i = e.writeChar(s, i)
	e.column = 0
	e.indention = true
	return i
}
