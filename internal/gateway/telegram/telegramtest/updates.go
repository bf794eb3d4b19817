package telegramtest

import (
	"net/http"
	"slices"
	"time"
)

// getUpdates answers a long poll: updates below offset are confirmed and
// dropped; the call waits up to timeout seconds for one to arrive. A poll
// that overlaps another ends the older one with 409, as Telegram does, and
// no poll works while a webhook is set.
func (s *Server) getUpdates(r *http.Request, p params) (any, *apiError) {
	offset, err := p.int("offset")
	if err != nil {
		return nil, err
	}
	limit, err := p.int("limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	timeout, err := p.int("timeout")
	if err != nil {
		return nil, err
	}
	var allowed []string
	if aerr := p.json("allowed_updates", &allowed); aerr != nil {
		return nil, aerr
	}

	s.mu.Lock()
	if s.webhook != "" {
		s.mu.Unlock()
		return nil, &apiError{code: 409, desc: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
	}
	if p.has("allowed_updates") {
		s.allowed = allowed
	}
	s.terminateLocked("Conflict: terminated by other getUpdates request; make sure that only one bot instance is running")
	terminated := make(chan struct{})
	s.polling = terminated
	s.confirmLocked(int(offset))
	s.mu.Unlock()

	defer func() {
		s.mu.Lock()
		if s.polling == terminated {
			s.polling = nil
		}
		s.mu.Unlock()
	}()
	deadline := s.clock.NewTimer(time.Duration(timeout) * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		batch := s.pendingLocked(int(limit))
		changed := s.changed
		s.mu.Unlock()
		if len(batch) > 0 || timeout <= 0 {
			return batch, nil
		}
		select {
		case <-terminated:
			s.mu.Lock()
			why := s.terminated
			s.mu.Unlock()
			return nil, &apiError{code: 409, desc: why}
		case <-r.Context().Done():
			return nil, nil
		case <-deadline.C():
			return []Update{}, nil
		case <-changed:
		}
	}
}

// terminateLocked ends the poll in progress, if any, with a 409 saying
// why. s.mu is held.
func (s *Server) terminateLocked(why string) {
	if s.polling != nil {
		s.terminated = why
		close(s.polling)
		s.polling = nil
	}
}

// confirmLocked drops the updates below offset; a negative offset keeps
// only the last -offset updates. s.mu is held.
func (s *Server) confirmLocked(offset int) {
	before := len(s.updates)
	defer func() {
		if len(s.updates) != before {
			s.changedLocked()
		}
	}()
	switch {
	case offset > 0:
		s.updates = slices.DeleteFunc(s.updates, func(u Update) bool { return u.UpdateID < offset })
	case offset < 0 && -offset < len(s.updates):
		s.updates = s.updates[len(s.updates)+offset:]
	}
}

// pendingLocked returns up to limit queued updates of the allowed types,
// dropping those of other types as Telegram never sends them. s.mu is held.
func (s *Server) pendingLocked(limit int) []Update {
	s.updates = slices.DeleteFunc(s.updates, func(u Update) bool { return !s.allowedLocked(u.kind()) })
	n := min(limit, len(s.updates))
	return slices.Clone(s.updates[:n])
}

// allowedLocked applies allowed_updates: none given means every type but
// chat_member (and the reactions, which this server does not make).
func (s *Server) allowedLocked(kind string) bool {
	if len(s.allowed) == 0 {
		return kind != "chat_member"
	}
	return slices.Contains(s.allowed, kind)
}

// AllowedUpdates returns the allowed_updates last set by getUpdates or
// setWebhook.
func (s *Server) AllowedUpdates() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.allowed)
}

// Pending returns the updates not yet confirmed.
func (s *Server) Pending() []Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.updates)
}

// push queues an update and returns its id.
func (s *Server) push(u Update) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	u.UpdateID = s.nextUpd
	s.nextUpd++
	s.updates = append(s.updates, u)
	s.changedLocked()
	return u.UpdateID
}

func (s *Server) setWebhook(_ *http.Request, p params) (any, *apiError) {
	url := p.str("url")
	var allowed []string
	if aerr := p.json("allowed_updates", &allowed); aerr != nil {
		return nil, aerr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = url
	s.hook.secret = p.str("secret_token")
	s.startPushingLocked()
	s.terminateLocked("Conflict: terminated by setWebhook request")
	if p.has("allowed_updates") {
		s.allowed = allowed
	}
	if p.str("drop_pending_updates") == "true" {
		s.updates = nil
	}
	s.changedLocked()
	return true, nil
}

func (s *Server) deleteWebhook(_ *http.Request, p params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = ""
	if p.str("drop_pending_updates") == "true" {
		s.updates = nil
	}
	s.changedLocked()
	return true, nil
}

func (s *Server) getWebhookInfo(*http.Request, params) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{"url": s.webhook, "pending_update_count": len(s.updates)}, nil
}

// SetWebhook sets (or with "" clears) the webhook as another program
// would, so that polls get 409.
func (s *Server) SetWebhook(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = url
	if url != "" {
		s.terminateLocked("Conflict: terminated by setWebhook request")
	}
	s.changedLocked()
}

// Webhook returns the webhook URL set, "" for none.
func (s *Server) Webhook() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook
}
