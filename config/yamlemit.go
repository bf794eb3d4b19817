package config

// The emitter lays out a stream of events as YAML text. It follows
// libyaml's emitter (MIT licence) state for state, as carried in the Go
// YAML package config.yaml used to be written with, minus what hermes never
// asks of it (directives, canonical output, line folding), so that
// indentation, quoting and comment placement come out as they always have.

type emitState uint8

const (
	docStartState emitState = iota
	docContentState
	docEndState
	flowSeqFirstState
	flowSeqTrailState
	flowSeqState
	flowMapFirstKeyState
	flowMapTrailKeyState
	flowMapKeyState
	flowMapSimpleValueState
	flowMapValueState
	blockSeqFirstState
	blockSeqState
	blockMapFirstKeyState
	blockMapKeyState
	blockMapSimpleValueState
	blockMapValueState
	endState
)

// emitter holds the layout state: where the output stands, the
// indentation stack, and the comments waiting to be written.
type emitter struct {
	buf        []byte
	bestIndent int
	evs        []event
	cur        int // index of the event being handled
	state      emitState
	states     []emitState
	indent     int
	indents    []int
	flowLevel  int
	column     int
	whitespace bool // the last character written was a space or a break
	indention  bool // only indentation has been written on this line
	footIndent int

	rootCtx, seqCtx, mapCtx, simpleKeyCtx bool

	// What the current event needs written, worked out by analyze.
	anchor    string
	alias     bool
	tagHandle string
	tagSuffix string
	scalar    scalarFacts

	headComment, lineComment, footComment, tailComment, keyLineComment string
}

func newEmitter(indent int) *emitter {
	if indent < 2 || indent > 9 {
		indent = 2
	}
	return &emitter{bestIndent: indent, indent: -1, whitespace: true, indention: true, footIndent: -1}
}

// run writes every event.
func (e *emitter) run(evs []event) {
	e.evs = evs
	for e.cur = 0; e.cur < len(evs); e.cur++ {
		ev := &evs[e.cur]
		e.analyze(ev)
		e.step(ev)
	}
}

func (e *emitter) push(s emitState) { e.states = append(e.states, s) }

func (e *emitter) pop() emitState {
	s := e.states[len(e.states)-1]
	e.states = e.states[:len(e.states)-1]
	return s
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

// step handles ev in the current state.
func (e *emitter) step(ev *event) {
	switch e.state {
	case docStartState:
		e.docStart(ev)
	case docContentState:
		e.push(docEndState)
		e.processHeadComment()
		e.node(ev, true, false, false, false)
		e.processLineComment(false)
		e.processFootComment()
	case docEndState:
		e.docEnd(ev)
	case flowSeqFirstState, flowSeqTrailState, flowSeqState:
		e.flowSeqItem(ev, e.state == flowSeqFirstState, e.state == flowSeqTrailState)
	case flowMapFirstKeyState, flowMapTrailKeyState, flowMapKeyState:
		e.flowMapKey(ev, e.state == flowMapFirstKeyState, e.state == flowMapTrailKeyState)
	case flowMapSimpleValueState, flowMapValueState:
		e.flowMapValue(ev, e.state == flowMapSimpleValueState)
	case blockSeqFirstState, blockSeqState:
		e.blockSeqItem(ev, e.state == blockSeqFirstState)
	case blockMapFirstKeyState, blockMapKeyState:
		e.blockMapKey(ev, e.state == blockMapFirstKeyState)
	case blockMapSimpleValueState, blockMapValueState:
		e.blockMapValue(ev, e.state == blockMapSimpleValueState)
	default:
		panic(emitError("expected nothing after STREAM-END"))
	}
}

func (e *emitter) docStart(ev *event) {
	switch ev.kind {
	case docStartEvent:
		if !ev.implicit {
			e.writeIndent()
			e.writeIndicator("---", true, false, false)
			e.writeIndent()
		}
		if e.headComment != "" {
			e.processHeadComment()
			e.putBreak()
		}
		e.state = docContentState
	case streamEndEvent:
		e.state = endState
	default:
		panic(emitError("expected DOCUMENT-START or STREAM-END"))
	}
}

func (e *emitter) docEnd(ev *event) {
	if ev.kind != docEndEvent {
		panic(emitError("expected DOCUMENT-END"))
	}
	e.footIndent = 0
	e.processFootComment()
	e.footIndent = -1
	e.writeIndent()
	if !ev.implicit {
		e.writeIndicator("...", true, false, false)
		e.writeIndent()
	}
	e.state = docStartState
}

// increaseIndent opens a level: flow levels and nested blocks align to the
// chosen indentation; the content of a block sequence item sits just
// past its "- ".
func (e *emitter) increaseIndent(flow bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0 && flow:
		e.indent = e.bestIndent
	case e.indent < 0:
		e.indent = 0
	case len(e.states) > 0 && e.states[len(e.states)-1] == blockSeqState:
		e.indent += 2
	default:
		e.indent = e.bestIndent * ((e.indent + e.bestIndent) / e.bestIndent)
	}
}

// pendingComments reports whether the current item carries comments that
// force its trailing comma to be written before them.
func (e *emitter) pendingComments() bool {
	return e.lineComment != "" || e.footComment != "" || e.tailComment != ""
}

func (e *emitter) flowSeqItem(ev *event, first, trail bool) {
	if first {
		e.writeIndicator("[", true, true, false)
		e.increaseIndent(true)
		e.flowLevel++
	}
	if ev.kind == seqEndEvent {
		e.flowLevel--
		e.popIndent()
		if e.column == 0 {
			e.writeIndent()
		}
		e.writeIndicator("]", false, false, false)
		e.processLineComment(false)
		e.processFootComment()
		e.state = e.pop()
		return
	}
	if !first && !trail {
		e.writeIndicator(",", false, false, false)
	}
	e.processHeadComment()
	if e.column == 0 {
		e.writeIndent()
	}
	if e.pendingComments() {
		e.push(flowSeqTrailState)
	} else {
		e.push(flowSeqState)
	}
	e.node(ev, false, true, false, false)
	if e.pendingComments() {
		e.writeIndicator(",", false, false, false)
	}
	e.processLineComment(false)
	e.processFootComment()
}

func (e *emitter) flowMapKey(ev *event, first, trail bool) {
	if first {
		e.writeIndicator("{", true, true, false)
		e.increaseIndent(true)
		e.flowLevel++
	}
	if ev.kind == mapEndEvent {
		if (e.headComment != "" || e.footComment != "" || e.tailComment != "") && !first && !trail {
			e.writeIndicator(",", false, false, false)
		}
		e.processHeadComment()
		e.flowLevel--
		e.popIndent()
		e.writeIndicator("}", false, false, false)
		e.processLineComment(false)
		e.processFootComment()
		e.state = e.pop()
		return
	}
	if !first && !trail {
		e.writeIndicator(",", false, false, false)
	}
	e.processHeadComment()
	if e.column == 0 {
		e.writeIndent()
	}
	if e.simpleKey() {
		e.push(flowMapSimpleValueState)
		e.node(ev, false, false, true, true)
		return
	}
	e.writeIndicator("?", true, false, false)
	e.push(flowMapValueState)
	e.node(ev, false, false, true, false)
}

func (e *emitter) flowMapValue(ev *event, simple bool) {
	e.writeIndicator(":", !simple, false, false)
	if e.pendingComments() {
		e.push(flowMapTrailKeyState)
	} else {
		e.push(flowMapKeyState)
	}
	e.node(ev, false, false, true, false)
	if e.pendingComments() {
		e.writeIndicator(",", false, false, false)
	}
	e.processLineComment(false)
	e.processFootComment()
}
