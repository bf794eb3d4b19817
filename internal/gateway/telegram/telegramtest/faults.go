package telegramtest

import (
	"strconv"
	"time"
)

// flood is one chat's flood budget: sends left before a 429, and when the
// current wait ends.
type flood struct {
	budget, left int
	retryAfter   time.Duration
	until        time.Time
	blocked      bool
	migrateTo    int64
	fail         []*apiError
}

// Flood gives the chat a budget of sends and edits; once it is spent,
// every send and edit to the chat gets 429 with retry_after for
// retryAfter, after which (by the server's clock) the budget is whole
// again. A budget below zero removes the limit.
func (s *Server) Flood(chatID int64, budget int, retryAfter time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faultsLocked(chatID)
	f.budget, f.left, f.retryAfter, f.until = budget, budget, retryAfter, time.Time{}
}

// Block makes the chat's user block the bot: sends get 403.
func (s *Server) Block(chatID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultsLocked(chatID).blocked = true
}

// Migrate turns the group into the supergroup newID: sends get 400 with
// parameters.migrate_to_chat_id.
func (s *Server) Migrate(chatID, newID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faultsLocked(chatID).migrateTo = newID
}

// Fail makes the next send or edit to the chat fail with status and
// description (a 500, say); calls queue further failures.
func (s *Server) Fail(chatID int64, status int, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faultsLocked(chatID)
	f.fail = append(f.fail, &apiError{code: status, desc: description})
}

func (s *Server) faultsLocked(chatID int64) *flood {
	f := s.flood[chatID]
	if f == nil {
		f = &flood{budget: -1}
		s.flood[chatID] = f
	}
	return f
}

// spendLocked charges one send or edit to the chat, or returns the error
// its faults call for. s.mu is held.
func (s *Server) spendLocked(chatID int64) *apiError {
	f := s.flood[chatID]
	if f == nil {
		return nil
	}
	if len(f.fail) > 0 {
		e := f.fail[0]
		f.fail = f.fail[1:]
		return e
	}
	if f.blocked {
		return &apiError{code: 403, desc: "Forbidden: bot was blocked by the user"}
	}
	if f.migrateTo != 0 {
		return &apiError{code: 400, desc: "Bad Request: group chat was upgraded to a supergroup chat", migrateTo: f.migrateTo}
	}
	if f.budget < 0 {
		return nil
	}
	now := s.clock.Now()
	if !f.until.IsZero() {
		if now.Before(f.until) {
			wait := int((f.until.Sub(now) + time.Second - 1) / time.Second)
			return &apiError{code: 429, desc: "Too Many Requests: retry after " + strconv.Itoa(wait), retryAfter: wait}
		}
		f.until, f.left = time.Time{}, f.budget
	}
	if f.left == 0 {
		f.until = now.Add(f.retryAfter)
		wait := int((f.retryAfter + time.Second - 1) / time.Second)
		return &apiError{code: 429, desc: "Too Many Requests: retry after " + strconv.Itoa(wait), retryAfter: wait}
	}
	f.left--
	return nil
}
