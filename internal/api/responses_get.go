package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// getResponse answers GET /v1/responses/{id}: the response rebuilt from
// the stored conversation, its answer as the one output message.
func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	c, f, ok := s.lookup(w, r)
	if !ok {
		return
	}
	var prev string
	if f.prev != nil {
		prev = f.prev.String()
	}
	obj := responseObject(f.ref.String(), cmp.Or(c.Model, "hermes"), f.answer.CreatedAt.Unix(), "completed", prev)
	switch llm.FinishReason(f.answer.FinishReason) {
	case llm.FinishLength:
		obj["status"], obj["incomplete_details"] = "incomplete", map[string]string{"reason": "max_output_tokens"}
	case llm.FinishContentFilter:
		obj["status"], obj["incomplete_details"] = "incomplete", map[string]string{"reason": "content_filter"}
	case "interrupted":
		// The client went away or the turn was stopped mid-answer.
		obj["status"] = "incomplete"
	}
	output := make([]map[string]any, len(f.said))
	for i, m := range f.said {
		output[i] = outputMessage("msg_"+strconv.FormatInt(m.ID, 10), "completed", m.Text())
	}
	obj["output"] = output
	writeJSON(w, http.StatusOK, obj)
}

// deleteResponse answers DELETE /v1/responses/{id}. A hermes
// conversation is one line of turns, each built on the ones before, and
// hermes keeps no response apart from it: deleting a response deletes
// its whole conversation, every response of it, in one transaction of
// the store. A conversation with a turn running is refused with 409.
func (s *Server) deleteResponse(w http.ResponseWriter, r *http.Request) {
	_, f, ok := s.lookup(w, r)
	if !ok {
		return
	}
	if !s.inUse.lock(f.ref.session) {
		writeError(w, http.StatusConflict, "invalid_request_error", "", fmt.Sprintf("the conversation of response %s is running a turn; delete it when the turn has ended", f.ref))
		return
	}
	defer s.inUse.unlock(f.ref.session)
	if err := s.opt.Conversations.Delete(r.Context(), f.ref.session); err != nil {
		writeRunError(w, err, "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "object": "response.deleted", "deleted": true})
}

// lookup finds the response the path's id names, or answers the error.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request) (*Conversation, *found, bool) {
	ref, bad := parseResponseID(r.PathValue("id"), "id")
	if bad != nil {
		writeError(w, http.StatusNotFound, "invalid_request_error", bad.param, bad.msg)
		return nil, nil, false
	}
	if s.opt.Conversations == nil {
		writeError(w, http.StatusNotFound, "invalid_request_error", "id", "this server keeps no responses")
		return nil, nil, false
	}
	c, err := s.opt.Conversations.Conversation(r.Context(), ref.session)
	var f *found
	if err == nil {
		f, err = c.find(ref)
	}
	if err != nil {
		writeRunError(w, err, "id")
		return nil, nil, false
	}
	return c, f, true
}

// writeRunError answers err: its status when the client caused it, 500
// otherwise; param names the field of a 404.
func writeRunError(w http.ResponseWriter, err error, param string) {
	status := http.StatusInternalServerError
	var ae *Error
	if errors.As(err, &ae) {
		status = ae.Status
		if ae.Param != "" || status != http.StatusNotFound {
			param = ae.Param
		}
		err = ae
	} else {
		param = ""
	}
	typ := "api_error"
	if status/100 == 4 {
		typ = "invalid_request_error"
	}
	writeError(w, status, typ, param, err.Error())
}

// inUse counts the turns running in each session, and marks a session
// being deleted with -1, so a conversation is never deleted under a
// running turn nor a turn started in one being deleted.
type inUse struct {
	mu sync.Mutex
	n  map[string]int
}

// hold marks a turn running in id; false when id is being deleted.
func (u *inUse) hold(id string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	if u.n[id] < 0 {
		return false
	}
	u.n[id]++
	return true
}

// release ends what hold marked.
func (u *inUse) release(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n[id]--; u.n[id] <= 0 {
		delete(u.n, id)
	}
}

// lock marks id as being deleted; false when a turn runs in it.
func (u *inUse) lock(id string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.n == nil {
		u.n = map[string]int{}
	}
	if u.n[id] != 0 {
		return false
	}
	u.n[id] = -1
	return true
}

// unlock ends what lock marked.
func (u *inUse) unlock(id string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.n, id)
}

// run runs t through Options.Run with its session held from the moment
// it is known until the turn ends.
func (s *Server) run(ctx context.Context, t Turn, sink agent.Sink) (*Result, error) {
	var held string
	ready := t.Ready
	cl, _ := ctx.Value(claimKey{}).(*claim)
	t.Ready = func(ctx context.Context, id string) error {
		if !s.inUse.hold(id) {
			return &Error{Status: http.StatusConflict, Message: fmt.Sprintf("session %s is being deleted; start a new conversation", id)}
		}
		held = id
		if cl != nil {
			if err := cl.ready(ctx, id); err != nil {
				return err
			}
		}
		if ready != nil {
			return ready(ctx, id)
		}
		return nil
	}
	defer func() {
		if held != "" {
			s.inUse.release(held)
		}
	}()
	return s.opt.Run(ctx, t, sink)
}
