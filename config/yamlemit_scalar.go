package config

import "strings"

// Scalars in the emitter (see yamlemit.go): which styles a value can be
// written in, the choice among them, and the writers for each style.

// scalarFacts says which styles can hold a value as it is.
type scalarFacts struct {
	value        string
	multiline    bool
	flowPlain    bool
	blockPlain   bool
	singleQuoted bool
	block        bool
	style        scalarKind
}

// analyze notes the comments an event carries and what its anchor, tag
// and value need.
func (e *emitter) analyze(ev *event) {
	e.anchor, e.alias, e.tagHandle, e.tagSuffix = "", false, "", ""
	e.scalar = scalarFacts{}
	if ev.head != "" {
		e.headComment = ev.head
	}
	if ev.line != "" {
		e.lineComment = ev.line
	}
	if ev.foot != "" {
		e.footComment = ev.foot
	}
	if ev.tail != "" {
		e.tailComment = ev.tail
	}
	switch ev.kind {
	case aliasEvent:
		e.analyzeAnchor(ev.anchor, true)
	case scalarEvent, seqStartEvent, mapStartEvent:
		if ev.anchor != "" {
			e.analyzeAnchor(ev.anchor, false)
		}
		if ev.tag != "" && !ev.implicit {
			e.analyzeTag(ev.tag)
		}
		if ev.kind == scalarEvent {
			e.analyzeScalar(ev.value)
		}
	}
}

func (e *emitter) analyzeAnchor(anchor string, alias bool) {
	what := "anchor"
	if alias {
		what = "alias"
	}
	if anchor == "" {
		panic(emitError(what + " value must not be empty"))
	}
	for i := 0; i < len(anchor); i++ {
		if !isAlphaAt(anchor, i) {
			panic(emitError(what + " value must contain alphanumerical characters only"))
		}
	}
	e.anchor, e.alias = anchor, alias
}

// analyzeTag splits a tag into the "!" or "!!" handle and the rest.
func (e *emitter) analyzeTag(tag string) {
	switch {
	case strings.HasPrefix(tag, "!"):
		e.tagHandle, e.tagSuffix = "!", tag[1:]
	case strings.HasPrefix(tag, longTagPrefix):
		e.tagHandle, e.tagSuffix = "!!", tag[len(longTagPrefix):]
	default:
		e.tagSuffix = tag
	}
}

// analyzeScalar works out which styles can write value.
func (e *emitter) analyzeScalar(value string) {
	f := &e.scalar
	f.value = value
	if value == "" {
		f.blockPlain, f.singleQuoted = true, true
		return
	}
	var blockInd, flowInd, lineBreaks, special, tabs bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...") {
		blockInd, flowInd = true, true
	}
	precededByWS, prevSpace, prevBreak := true, false, false
	for i, w := 0, 0; i < len(value); i += w {
		w = max(charWidth(value[i]), 1)
		followedByWS := i+w >= len(value) || isBlankAt(value, i+w)
		c := value[i]
		if i == 0 {
			switch c {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				flowInd, blockInd = true, true
			case '?', ':':
				flowInd = true
				blockInd = blockInd || followedByWS
			case '-':
				if followedByWS {
					flowInd, blockInd = true, true
				}
			}
		} else {
			switch c {
			case ',', '?', '[', ']', '{', '}':
				flowInd = true
			case ':':
				flowInd = true
				blockInd = blockInd || followedByWS
			case '#':
				if precededByWS {
					flowInd, blockInd = true, true
				}
			}
		}
		if c == '\t' {
			tabs = true
		} else if !isPrintableAt(value, i) {
			special = true
		}
		switch {
		case c == ' ':
			leadingSpace = leadingSpace || i == 0
			trailingSpace = trailingSpace || i+w == len(value)
			breakSpace = breakSpace || prevBreak
			prevSpace, prevBreak = true, false
		case isBreakAt(value, i):
			lineBreaks = true
			leadingBreak = leadingBreak || i == 0
			trailingBreak = trailingBreak || i+w == len(value)
			spaceBreak = spaceBreak || prevSpace
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = isBlankzAt(value, i)
	}
	f.multiline = lineBreaks
	f.flowPlain, f.blockPlain, f.singleQuoted, f.block = true, true, true, true
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak || lineBreaks {
		f.flowPlain, f.blockPlain = false, false
	}
	if trailingSpace {
		f.block = false
	}
	if breakSpace || spaceBreak || tabs || special {
		f.flowPlain, f.blockPlain, f.singleQuoted = false, false, false
	}
	if spaceBreak || special {
		f.block = false
	}
	if flowInd {
		f.flowPlain = false
	}
	if blockInd {
		f.blockPlain = false
	}
}

// selectScalarStyle picks the style for the current scalar: the one
// asked for when the value allows it, else the next safer one.
func (e *emitter) selectScalarStyle(ev *event) {
	f := &e.scalar
	style := ev.style
	if style == anyScalar {
		style = plainScalar
	}
	if e.simpleKeyCtx && f.multiline {
		style = doubleQuotedScalar
	}
	if style == plainScalar {
		if e.flowLevel > 0 && !f.flowPlain || e.flowLevel == 0 && !f.blockPlain {
			style = singleQuotedScalar
		}
		if f.value == "" && (e.flowLevel > 0 || e.simpleKeyCtx) {
			style = singleQuotedScalar
		}
		if e.tagHandle == "" && e.tagSuffix == "" && !ev.implicit {
			style = singleQuotedScalar
		}
	}
	if style == singleQuotedScalar && !f.singleQuoted {
		style = doubleQuotedScalar
	}
	if (style == literalScalar || style == foldedScalar) && (!f.block || e.flowLevel > 0 || e.simpleKeyCtx) {
		style = doubleQuotedScalar
	}
	if e.tagHandle == "" && e.tagSuffix == "" && !ev.implicit && style != plainScalar {
		e.tagHandle = "!"
	}
	f.style = style
}

func (e *emitter) processScalar() {
	v := e.scalar.value
	switch e.scalar.style {
	case plainScalar:
		e.writePlain(v)
	case singleQuotedScalar:
		e.writeSingleQuoted(v)
	case doubleQuotedScalar:
		e.writeDoubleQuoted(v)
	case literalScalar:
		e.writeLiteral(v)
	case foldedScalar:
		e.writeFolded(v)
	}
}
