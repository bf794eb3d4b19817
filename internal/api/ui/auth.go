package ui

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// cookieName holds a login's random token; the key itself never leaves
// the login form.
const cookieName = "hermes_ui"

// logins are the tokens of the browsers logged in, each with its
// expiry. They are bounded in number (the oldest forgotten first) and in
// age, so neither logging in again and again nor months of uptime grow
// them. Only the tokens' hashes are kept.
type logins struct {
	clock clock.Clock
	ttl   time.Duration
	max   int
	// secret keys the CSRF tokens, so one is bound to its login.
	secret [32]byte

	mu      sync.Mutex
	expires map[[sha256.Size]byte]time.Time
}

func newLogins(c clock.Clock, ttl time.Duration, n int) *logins {
	l := &logins{clock: c, ttl: ttl, max: n, expires: make(map[[sha256.Size]byte]time.Time)}
	rand.Read(l.secret[:])
	return l
}

// add makes a new login and returns its token.
func (l *logins) add() string {
	var b [32]byte
	rand.Read(b[:])
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, exp := range l.expires {
		if !exp.After(now) {
			delete(l.expires, k)
		}
	}
	for len(l.expires) >= l.max {
		var oldest [sha256.Size]byte
		first := true
		for k, exp := range l.expires {
			if first || exp.Before(l.expires[oldest]) {
				oldest, first = k, false
			}
		}
		delete(l.expires, oldest)
	}
	l.expires[sha256.Sum256([]byte(tok))] = now.Add(l.ttl)
	return tok
}

// valid reports whether tok is a login that has not expired.
func (l *logins) valid(tok string) bool {
	if tok == "" {
		return false
	}
	k := sha256.Sum256([]byte(tok))
	l.mu.Lock()
	defer l.mu.Unlock()
	exp, ok := l.expires[k]
	if ok && !exp.After(l.clock.Now()) {
		delete(l.expires, k)
		return false
	}
	return ok
}

// remove ends a login.
func (l *logins) remove(tok string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.expires, sha256.Sum256([]byte(tok)))
}

// size is how many logins are kept.
func (l *logins) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.expires)
}

// csrf is the token a login's forms carry: an HMAC of its cookie's
// token, so a page of another site can neither read nor forge it.
func (l *logins) csrf(tok string) string {
	m := hmac.New(sha256.New, l.secret[:])
	m.Write([]byte(tok))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// keyOK compares key with every API key in constant time, over hashes.
func (d *Dashboard) keyOK(key string) bool {
	sum := sha256.Sum256([]byte(strings.TrimSpace(key)))
	found := 0
	for _, k := range d.keys {
		found |= subtle.ConstantTimeCompare(sum[:], k[:])
	}
	return found == 1
}

// setLogin starts a login and gives the browser its cookie: HttpOnly so
// no script reads it, SameSite=Strict so no other site's request carries
// it, Secure when the page came over TLS.
func (d *Dashboard) setLogin(w http.ResponseWriter, r *http.Request) string {
	tok := d.logins.add()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: Prefix, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: secure(r), MaxAge: int(d.opt.LoginTTL / time.Second)})
	return tok
}

// secure reports whether the browser reached hermes over TLS, directly
// or through a proxy that says so.
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// login answers the login form: a right key starts a login, a wrong one
// shows the form again with why.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	if len(d.keys) == 0 {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	if !d.guesses.allow() {
		d.render(w, r, http.StatusTooManyRequests, "login", page{Title: "Log in",
			Error: fmt.Sprintf("More than %d wrong keys in a minute: every key is refused until a minute has passed since the first of them; wait, then try again.", maxGuesses)})
		return
	}
	if !d.keyOK(r.PostFormValue("key")) {
		d.guesses.wrong()
		d.opt.Logger.Warn("dashboard: a login with a wrong key", "remote", r.RemoteAddr)
		d.render(w, r, http.StatusUnauthorized, "login", page{Title: "Log in",
			Error: "That key is not one of api.keys or HERMES_API_KEY; paste one of them."})
		return
	}
	d.setLogin(w, r)
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

// loginPage shows the login form.
func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	if len(d.keys) == 0 {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "login", page{Title: "Log in"})
}

// logout ends the login and forgets the cookie.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request, _ string) {
	if c, err := r.Cookie(cookieName); err == nil {
		d.logins.remove(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: secure(r)})
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}

// authed lets a request with a valid login through to h, with the CSRF
// token its forms must carry; every POST must carry it. Without keys a
// browser is logged in on its first page, so its POSTs carry a token too
// (a page of another site could otherwise post to a dashboard on
// 127.0.0.1). Without a login a page answers 401 with the login form.
func (d *Dashboard) authed(h func(w http.ResponseWriter, r *http.Request, csrf string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := ""
		if c, err := r.Cookie(cookieName); err == nil && d.logins.valid(c.Value) {
			tok = c.Value
		}
		if tok == "" {
			if len(d.keys) > 0 || r.Method != http.MethodGet {
				w.Header().Set("WWW-Authenticate", `Cookie realm="hermes", form-action="`+Prefix+`/login"`)
				if r.Method != http.MethodGet {
					http.Error(w, "log in at "+Prefix+"/login first: this request carries no valid login", http.StatusUnauthorized)
					return
				}
				d.render(w, r, http.StatusUnauthorized, "login", page{Title: "Log in"})
				return
			}
			tok = d.setLogin(w, r)
		}
		want := d.logins.csrf(tok)
		if r.Method != http.MethodGet {
			got := r.PostFormValue("csrf")
			if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				http.Error(w, "csrf: the form's token is missing or not this login's; reload the page and submit it again", http.StatusForbidden)
				return
			}
		}
		h(w, r, want)
	}
}

// maxGuesses is how many wrong keys the login form takes in a minute.
const maxGuesses = 10

// guesses counts the wrong keys given at the login form: past maxGuesses
// in a minute, every key is refused for the rest of it, so a key cannot
// be guessed online. One count for all callers, not one per address, so
// it holds no more under attack; logins already made go on working.
type guesses struct {
	clock clock.Clock

	mu    sync.Mutex
	since time.Time
	n     int
}

// allow reports whether the form may check a key now.
func (g *guesses) allow() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.clock.Now().Sub(g.since) >= time.Minute {
		g.since, g.n = time.Time{}, 0
	}
	return g.n < maxGuesses
}

// wrong counts a wrong key.
func (g *guesses) wrong() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.since = g.clock.Now()
	}
	g.n++
}

// kept is one value kept for a while: what is slow to learn (the
// platforms' health) is asked at most once per ttl.
type kept[T any] struct {
	clock clock.Clock
	ttl   time.Duration

	mu  sync.Mutex
	at  time.Time
	val T
	ok  bool
}

// get returns the kept value, or asks fetch for a new one when it is
// older than ttl. An error is not kept.
func (k *kept[T]) get(fetch func() (T, error)) (T, time.Time, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.clock.Now()
	if k.ok && now.Sub(k.at) < k.ttl {
		return k.val, k.at, nil
	}
	v, err := fetch()
	if err != nil {
		return v, now, err
	}
	k.val, k.at, k.ok = v, now, true
	return v, now, nil
}
