package dingtalk

import (
	"net/url"
	"strings"
	"sync"
	"time"
)

// budget is the robot's 20 messages a minute, over all its chats. The
// outbox paces each chat on its own, so without it five busy chats would
// send five times what the robot may; a send past it is answered as a
// rate limit before it reaches DingTalk, which would otherwise throttle
// the robot for minutes.
type budget struct {
	mu sync.Mutex
	// sent are the times of the last sends, at most PerMinute.
	sent []time.Time
	// hold is when DingTalk's last refusal ends; strikes counts refusals
	// in a row, doubling the wait.
	hold    time.Time
	strikes int
}

// take reserves a send at now, or returns how long to wait for one.
func (b *budget) take(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Before(b.hold) {
		return b.hold.Sub(now)
	}
	for len(b.sent) > 0 && now.Sub(b.sent[0]) >= time.Minute {
		b.sent = b.sent[1:]
	}
	if len(b.sent) >= PerMinute {
		return b.sent[0].Add(time.Minute).Sub(now)
	}
	b.sent = append(b.sent, now)
	return 0
}

// Waits after DingTalk refuses a send as too fast. It says nothing of how
// long to wait, so the wait starts short and doubles while it goes on.
const (
	minRefusalWait = 2 * time.Second
	maxRefusalWait = time.Minute
)

// refused records that DingTalk refused a send as too fast and returns
// how long every send of the robot waits.
func (b *budget) refused(now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	wait := maxRefusalWait
	if b.strikes < 6 {
		wait = min(minRefusalWait<<b.strikes, maxRefusalWait)
	}
	b.strikes++
	b.hold = now.Add(wait)
	return wait
}

// delivered records a send DingTalk took, ending a run of refusals.
func (b *budget) delivered() {
	b.mu.Lock()
	b.strikes = 0
	b.mu.Unlock()
}

// route is how to answer a chat without the robot API: the
// sessionWebhook of its last message, until it expires.
type route struct {
	url     string
	expires time.Time
}

// routes keeps each chat's sessionWebhook. Entries go when they expire
// (within hours), so the map holds only chats that spoke lately.
type routes struct {
	baseHost string
	mu       sync.Mutex
	m        map[string]route
}

// set records chat's sessionWebhook, dropping expired ones.
func (r *routes) set(chat string, rt route, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]route{}
	}
	for k, old := range r.m {
		if !now.Before(old.expires) {
			delete(r.m, k)
		}
	}
	r.m[chat] = rt
}

// get returns chat's sessionWebhook while it lasts. A webhook expiring
// within a few seconds is not used: the send could arrive after it.
func (r *routes) get(chat string, now time.Time) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.m[chat]
	if !ok || !now.Add(5*time.Second).Before(rt.expires) {
		return "", false
	}
	return rt.url, true
}

// forget drops chat's sessionWebhook, after DingTalk refused it.
func (r *routes) forget(chat string) {
	r.mu.Lock()
	delete(r.m, chat)
	r.mu.Unlock()
}

// trusted reports whether a sessionWebhook may be posted to: an https
// address of DingTalk's, or one on the configured API host. hermes posts
// the reply, with the model's words, wherever it points.
func (r *routes) trusted(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.User != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" && (host == "dingtalk.com" || strings.HasSuffix(host, ".dingtalk.com")) {
		return true
	}
	return (u.Scheme == "https" || u.Scheme == "http") && u.Host == r.baseHost
}
