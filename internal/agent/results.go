package agent

import (
	"context"
	"sync"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// results puts one reply's tool results on record in call order as they
// come in. The reply itself is recorded before any of its calls runs;
// each result is recorded as soon as it and every result before it are
// known, so a process killed during a call loses only the results of the
// calls still running, and resuming answers those as lost (lostResult)
// instead of running them again. Images tools returned go on record last,
// in one user message after the results.
//
// Results arrive from the dispatcher's workers (arrived) and, once it
// returns, from its outcomes (set); a mutex keeps the two apart.
type results struct {
	r     *run
	ctx   context.Context
	slots []slot

	mu sync.Mutex
	// next is the first slot whose result is not on record yet.
	next int
	// failed is set when recording failed while calls still ran; what is
	// left is then tried once more by finish.
	failed bool
	// recorded are the messages on record so far, in order.
	recorded           []llm.Message
	imageTools, images []string
}

// arrived takes a call's outcome from a dispatcher worker and records
// every result now known at the head of the line.
func (rs *results) arrived(i int, o tool.Outcome) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.take(i, o)
	if rs.failed {
		return
	}
	if err := rs.flush(false); err != nil {
		rs.failed = true
		rs.r.log.Warn("tool result not recorded yet; trying again when the round ends", "error", err.Error())
	}
}

// set takes a call's outcome as the dispatcher returned it.
func (rs *results) set(i int, o tool.Outcome) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.take(i, o)
}

func (rs *results) take(i int, o tool.Outcome) {
	s := &rs.slots[i]
	res := o.Result
	s.result, s.content = &res, o.Content
	s.invalid = res.ErrorCode == tool.CodeInvalidArguments
}

// finish records every result not yet on record, and the round's images,
// and returns all the messages recorded after the reply.
func (rs *results) finish() ([]llm.Message, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if err := rs.flush(true); err != nil {
		return nil, err
	}
	return rs.recorded, nil
}

// ready reports whether slot i has its result: its own, or for a repeated
// call the result of the call it repeats.
func (rs *results) ready(i int) bool {
	s := &rs.slots[i]
	if s.dupOf >= 0 {
		s = &rs.slots[s.dupOf]
	}
	return s.result != nil
}

// flush records the results known at the head of the line, in one
// transaction; last adds the image message, which closes the round.
// Nothing is taken as recorded unless the store took it.
func (rs *results) flush(last bool) error {
	var recs []Recorded
	tools, images := rs.imageTools, rs.images
	n := rs.next
	for ; n < len(rs.slots) && rs.ready(n); n++ {
		s := &rs.slots[n]
		content := s.content
		if s.dupOf >= 0 {
			content = rs.slots[s.dupOf].content
		}
		content, image := takeImage(content)
		if image != "" && s.dupOf < 0 {
			tools, images = append(tools, s.call.Name), append(images, image)
		}
		recs = append(recs, Recorded{Message: llm.ToolResultMessage(s.call.ID, s.call.Name, content)})
	}
	if last && len(images) > 0 {
		recs = append(recs, Recorded{Message: imageMessage(tools, images)})
	}
	if len(recs) == 0 {
		return nil
	}
	if err := rs.r.record(rs.ctx, recs...); err != nil {
		return err
	}
	rs.next, rs.imageTools, rs.images = n, tools, images
	for _, rec := range recs {
		rs.recorded = append(rs.recorded, rec.Message)
	}
	return nil
}

// lostResult answers a call whose result never reached the record: the
// process stopped (was killed, crashed, lost power) while the call ran,
// or before it started. Whether it took effect is unknown, so the model
// is told to find out rather than to run it again blindly.
func lostResult(name string) tool.Result {
	return tool.Fail(tool.CodeInterrupted, "no result: hermes stopped while %s was running (the process was killed or crashed), "+
		"so its outcome is unknown. It may or may not have taken effect: check its effects before running it again, "+
		"and tell the user if you cannot tell.", name)
}
