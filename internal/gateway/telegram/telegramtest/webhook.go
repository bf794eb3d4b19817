package telegramtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
)

// webhookPusher is the server's webhook mode: while a webhook is set, it
// POSTs the pending updates to it one at a time, in order, with the
// secret in X-Telegram-Bot-Api-Secret-Token, as Telegram does. An update
// is dropped from the queue when the webhook answers 2xx; otherwise it is
// posted again after a short wait.
type webhookPusher struct {
	secret  string
	running bool
	done    chan struct{} // closed by Close
	posts   int
	refused []int // statuses of posts not answered 2xx
}

// retryPost is the wait before posting an update again. Telegram waits
// longer; a test does not need to.
const retryPost = 20 * time.Millisecond

// startPushingLocked starts the pusher unless it runs; s.mu is held.
func (s *Server) startPushingLocked() {
	if s.hook.running {
		return
	}
	if s.hook.done == nil {
		s.hook.done = make(chan struct{})
	}
	s.hook.running = true
	go s.pushLoop()
}

func (s *Server) stopPushing() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hook.done == nil {
		s.hook.done = make(chan struct{})
	}
	select {
	case <-s.hook.done:
	default:
		close(s.hook.done)
	}
}

// pushLoop posts updates until the webhook is deleted or the server closes.
func (s *Server) pushLoop() {
	client := &http.Client{Timeout: 10 * time.Second}
	for {
		s.mu.Lock()
		url, secret, done, changed := s.webhook, s.hook.secret, s.hook.done, s.changed
		var next *Update
		if batch := s.pendingLocked(1); len(batch) > 0 {
			next = &batch[0]
		}
		if url == "" {
			s.hook.running = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		if next == nil {
			select {
			case <-changed:
				continue
			case <-done:
				return
			}
		}
		status := post(client, url, secret, next)
		s.mu.Lock()
		s.hook.posts++
		if status/100 == 2 {
			s.confirmLocked(next.UpdateID + 1)
			s.changedLocked()
			s.mu.Unlock()
			continue
		}
		s.hook.refused = append(s.hook.refused, status)
		s.changedLocked()
		s.mu.Unlock()
		select {
		case <-time.After(retryPost):
		case <-done:
			return
		}
	}
}

// post sends one update and returns the status, 0 when the request failed.
func post(client *http.Client, url, secret string, u *Update) int {
	body, err := json.Marshal(u)
	if err != nil {
		return 0
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// WebhookPosts returns how many updates were posted to the webhook, and
// the statuses of those not answered 2xx, in order.
func (s *Server) WebhookPosts() (int, []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hook.posts, append([]int(nil), s.hook.refused...)
}

// WebhookSecret returns the secret_token the last setWebhook gave.
func (s *Server) WebhookSecret() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hook.secret
}
