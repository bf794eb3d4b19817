package discordtest

import (
	"net/http"
	"strconv"
	"time"
)

// limit is one channel's message bucket: requests left in the window and
// when it resets, and 429s to answer next.
type limit struct {
	budget, left int
	window       time.Duration
	reset        time.Time
	forced       []float64
	// limited counts the 429s answered; early the requests that came
	// while the bucket was known to be empty (after Remaining: 0 or a
	// 429), which a client keeping the limits never makes.
	limited, early int
}

// bucketHash is the X-RateLimit-Bucket of the message routes; creating
// and editing share it, per channel.
const bucketHash = "msgs-9f2c"

// RateLimit gives the channel's message bucket budget requests per
// window; past it, requests get 429 until the window resets (by the
// server's clock). Every answer carries the bucket's headers.
func (s *Server) RateLimit(channelID string, budget int, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limitLocked(channelID)
	l.budget, l.left, l.window, l.reset = budget, budget, window, time.Time{}
}

// Fail429 makes the next create or edit in the channel get a 429 with
// retry_after seconds (not global).
func (s *Server) Fail429(channelID string, retryAfter float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limitLocked(channelID)
	l.forced = append(l.forced, retryAfter)
}

// Global429 makes the next REST request with the bot token get a global
// 429 with retry_after seconds.
func (s *Server) Global429(retryAfter float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.global = append(s.global, retryAfter)
}

// Limited returns how many 429s the channel got, and how many requests
// came while its bucket was known to be empty.
func (s *Server) Limited(channelID string) (limited, early int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limitLocked(channelID)
	return l.limited, l.early
}

func (s *Server) limitLocked(channelID string) *limit {
	l := s.limits[channelID]
	if l == nil {
		l = &limit{budget: -1}
		s.limits[channelID] = l
	}
	return l
}

func (s *Server) takeGlobal() (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.global) == 0 {
		return 0, false
	}
	r := s.global[0]
	s.global = s.global[1:]
	return r, true
}

// spend charges a message request to the channel's bucket and writes its
// headers; false when it answered 429 instead.
func (s *Server) spend(w http.ResponseWriter, channelID string) bool {
	s.mu.Lock()
	l := s.limitLocked(channelID)
	now := s.clock.Now()
	if l.budget >= 0 && !l.reset.IsZero() && !now.Before(l.reset) {
		l.left, l.reset = l.budget, time.Time{}
	}
	if l.budget >= 0 && l.left == 0 {
		l.early++
	}
	var retry float64
	switch {
	case len(l.forced) > 0:
		retry, l.forced = l.forced[0], l.forced[1:]
	case l.budget >= 0 && l.left == 0:
		retry = l.reset.Sub(now).Seconds()
	}
	if retry == 0 && l.budget >= 0 {
		l.left--
		if l.reset.IsZero() {
			l.reset = now.Add(l.window)
		}
	}
	h := w.Header()
	if l.budget >= 0 {
		h.Set("X-RateLimit-Limit", strconv.Itoa(l.budget))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(max(l.left, 0)))
		after := max(l.reset.Sub(now).Seconds(), 0)
		h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(after, 'f', 3, 64))
		h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(now.Add(l.reset.Sub(now)).UnixMilli())/1000, 'f', 3, 64))
		h.Set("X-RateLimit-Bucket", bucketHash)
	}
	if retry > 0 {
		l.limited++
		s.changedLocked()
	}
	s.mu.Unlock()
	if retry > 0 {
		writeLimited(w, retry, false, "user")
		return false
	}
	return true
}

// writeLimited answers 429 as Discord does: headers and a body with
// retry_after in seconds.
func writeLimited(w http.ResponseWriter, retry float64, global bool, scope string) {
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int(retry+0.999)))
	if global {
		h.Set("X-RateLimit-Global", "true")
		scope = "global"
	}
	h.Set("X-RateLimit-Scope", scope)
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message": "You are being rate limited.", "retry_after": retry, "global": global,
		"code": 0,
	})
}
