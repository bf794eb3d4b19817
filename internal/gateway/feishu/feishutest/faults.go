package feishutest

import (
	"net/http"
	"time"
)

// faults are one chat's limits and the failures a test asked for.
type faults struct {
	recent []time.Time // sends and edits in the last second
	fail   []*apiError
	// limited counts the calls refused for the rate.
	limited int
}

// MaxPerSecond is Feishu's limit of calls a second per user and per group.
const MaxPerSecond = 5

// Throttle makes the next n sends or edits to chat fail with 230020, the
// per-chat rate limit, as Feishu answers when other bots in the group
// spent the chat's budget.
func (s *Server) Throttle(chat string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faultsLocked(chat)
	for range n {
		f.fail = append(f.fail, &apiError{status: http.StatusBadRequest, code: CodeRateLimited, msg: "The request you send is too frequent, please try again later"})
	}
}

// AppRateLimit makes the next n sends or edits to chat fail with HTTP
// 429 and 99991400, the app's frequency limit, with
// x-ogw-ratelimit-reset set to reset seconds.
func (s *Server) AppRateLimit(chat string, n, reset int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faultsLocked(chat)
	for range n {
		f.fail = append(f.fail, &apiError{status: http.StatusTooManyRequests, code: CodeAppRateLimited, msg: "request trigger frequency limit", reset: reset})
	}
}

// Fail makes the next send or edit to chat fail with status, code and
// msg (a 500, say); calls queue further failures.
func (s *Server) Fail(chat string, status, code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faultsLocked(chat)
	f.fail = append(f.fail, &apiError{status: status, code: code, msg: msg})
}

// RateLimited is how many sends and edits to chat were refused for the
// rate, by Throttle, AppRateLimit or the five a second.
func (s *Server) RateLimited(chat string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faultsLocked(chat).limited
}

func (s *Server) faultsLocked(chat string) *faults {
	f := s.faults[chat]
	if f == nil {
		f = &faults{}
		s.faults[chat] = f
	}
	return f
}

// spendLocked charges a send or edit to chat, or returns the failure its
// faults or its rate call for. s.mu is held.
func (s *Server) spendLocked(chat string) *apiError {
	f := s.faultsLocked(chat)
	if len(f.fail) > 0 {
		e := f.fail[0]
		f.fail = f.fail[1:]
		if e.code == CodeRateLimited || e.code == CodeAppRateLimited {
			f.limited++
		}
		return e
	}
	now := s.clock.Now()
	keep := f.recent[:0]
	for _, t := range f.recent {
		if now.Sub(t) < time.Second {
			keep = append(keep, t)
		}
	}
	f.recent = keep
	if len(f.recent) >= MaxPerSecond {
		f.limited++
		return &apiError{status: http.StatusBadRequest, code: CodeRateLimited, msg: "The request you send is too frequent, please try again later"}
	}
	f.recent = append(f.recent, now)
	return nil
}
