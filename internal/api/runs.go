package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// A run is a turn started over HTTP that goes on without the request
// that started it: POST /v1/runs answers with the run's id at once, and
// any client holding a key then follows the run's events, answers its
// approvals and stops it by that id. A client that leaves does not end a
// run; only stop, or hermes shutting down, does.

// The defaults of Options.RunsKept and Options.RunsKeptFor: a server runs
// for months, so finished runs are forgotten, the oldest first.
const (
	defaultRunsKept    = 256
	defaultRunsKeptFor = time.Hour
)

// runRequest is the body of POST /v1/runs.
type runRequest struct {
	Input     string `json:"input"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
}

// runFields are the fields a run request may have, for the error about
// one it may not.
const runFields = "input, session_id, model"

// runs holds the runs the server knows: the running ones and the last
// finished ones.
type runs struct {
	mu     sync.Mutex
	byID   map[string]*run
	closed bool
	wg     sync.WaitGroup
}

// startRun answers POST /v1/runs: it starts the turn in its own context,
// holding a run slot until the turn ends, and answers 202 with the run.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	req, bad := decodeRun(r)
	if bad == nil {
		bad = s.checkModel(req.Model)
	}
	release, ok := s.admit(w, bad)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	rn := newRun(s.runID(), req.SessionID, s.opt.Clock.Now(), cancel)
	rn.user = CallerFrom(r.Context()).User
	s.runs.mu.Lock()
	if s.runs.closed {
		s.runs.mu.Unlock()
		cancel()
		release()
		writeError(w, http.StatusServiceUnavailable, "api_error", "", "hermes is shutting down and starts no more runs; try again when it is back")
		return
	}
	s.pruneRuns()
	if s.runs.byID == nil {
		s.runs.byID = make(map[string]*run)
	}
	s.runs.byID[rn.id] = rn
	s.runs.wg.Add(1)
	s.runs.mu.Unlock()
	turn := Turn{SessionID: req.SessionID, Text: req.Input, Model: s.modelName(req.Model),
		Started: rn.start, Prompter: runPrompter{rn}}
	go func() {
		defer s.runs.wg.Done()
		defer release()
		defer cancel()
		res, err := s.run(ctx, turn, rn)
		rn.end(res, runErr(err, req.SessionID), ctx.Err() != nil, s.opt.Clock.Now())
	}()
	writeJSON(w, http.StatusAccepted, rn.view())
}

// runErr names the run's field, session_id, in an error about the
// session the turn was to continue, which Run words for chat completions.
func runErr(err error, sessionID string) error {
	var ae *Error
	if sessionID == "" || !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return err
	}
	return &Error{Status: ae.Status, Param: "session_id", Message: fmt.Sprintf("session_id: %q is not a session of the API; leave session_id out to start a new session, or give the session_id of an earlier run", sessionID)}
}

// decodeRun reads and checks a run request; a field it does not know is
// refused, so a misspelt session_id does not start a new session.
func decodeRun(r *http.Request) (*runRequest, *badRequest) {
	var req runRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			field = strings.Trim(field, `"`)
			return nil, &badRequest{http.StatusBadRequest, field, fmt.Sprintf("%s: is not a field of a run; use %s", field, runFields)}
		}
		return nil, decodeErr(err, "run")
	}
	switch {
	case strings.TrimSpace(req.Input) == "":
		return nil, &badRequest{http.StatusBadRequest, "input", `input: an empty message is not accepted; send the user's message as a string, e.g. {"input":"list the files"}`}
	case req.SessionID != strings.TrimSpace(req.SessionID) || strings.ContainsAny(req.SessionID, "\x00\r\n"):
		return nil, &badRequest{http.StatusBadRequest, "session_id", fmt.Sprintf("session_id: %q is not accepted; give the session_id of an earlier run or chat completion, or leave it out to start a new session", req.SessionID)}
	}
	return &req, nil
}

// lookupRun finds the run the path names, or answers 404.
func (s *Server) lookupRun(w http.ResponseWriter, r *http.Request) *run {
	id := r.PathValue("id")
	s.runs.mu.Lock()
	s.pruneRuns()
	run := s.runs.byID[id]
	s.runs.mu.Unlock()
	if c := CallerFrom(r.Context()); run != nil && !c.Owner() && run.user != c.User {
		// Another user's run is answered as one that does not exist.
		run = nil
	}
	if run == nil {
		writeError(w, http.StatusNotFound, "invalid_request_error", "id", fmt.Sprintf("run %q is not known: it never existed or finished long enough ago to be forgotten; POST /v1/runs starts one", id))
	}
	return run
}

// getRun answers GET /v1/runs/{id}.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if run := s.lookupRun(w, r); run != nil {
		writeJSON(w, http.StatusOK, run.view())
	}
}

// stopRun answers POST /v1/runs/{id}/stop: it cancels the turn, which
// denies an approval it waits for, and answers once the run has ended.
func (s *Server) stopRun(w http.ResponseWriter, r *http.Request) {
	run := s.lookupRun(w, r)
	if run == nil {
		return
	}
	if !run.stop() {
		writeError(w, http.StatusConflict, "invalid_request_error", "id", fmt.Sprintf("run %s has %s already; there is nothing to stop", run.id, run.view().Status))
		return
	}
	select {
	case <-run.done:
	case <-r.Context().Done():
		return
	}
	writeJSON(w, http.StatusOK, run.view())
}

// pruneRuns forgets the finished runs kept longer than RunsKeptFor, and
// the oldest beyond RunsKept. It is called with runs.mu held.
func (s *Server) pruneRuns() {
	keep, keepFor := s.opt.RunsKept, s.opt.RunsKeptFor
	if keep <= 0 {
		keep = defaultRunsKept
	}
	if keepFor <= 0 {
		keepFor = defaultRunsKeptFor
	}
	now := s.opt.Clock.Now()
	var finished []*run
	for id, r := range s.runs.byID {
		at, ok := r.finishedAt()
		switch {
		case !ok:
		case now.Sub(at) >= keepFor:
			delete(s.runs.byID, id)
		default:
			finished = append(finished, r)
		}
	}
	if extra := len(finished) - keep; extra > 0 {
		// Oldest first; finished is small (RunsKept), so a sort per
		// new run is cheap.
		sortByFinish(finished)
		for _, r := range finished[:extra] {
			delete(s.runs.byID, r.id)
		}
	}
}

// Close cancels the runs still going and waits for them to end, so that
// nothing they write outlives the stores hermes closes after the server.
// The server starts no run after Close.
func (s *Server) Close() {
	s.runs.mu.Lock()
	s.runs.closed = true
	for _, r := range s.runs.byID {
		r.stop()
	}
	s.runs.mu.Unlock()
	s.runs.wg.Wait()
}
