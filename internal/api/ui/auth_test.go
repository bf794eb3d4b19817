package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestAuthRefusesWithoutALogin checks every page and the run-now POST
// refuse a browser that has not logged in, that gave a wrong key, or
// whose cookie is forged or expired.
func TestAuthRefusesWithoutALogin(t *testing.T) {
	h := seed(t)
	d := New(h.opt)
	pages := []string{"/ui/", "/ui/turns", "/ui/sessions", "/ui/sessions/s-attack", "/ui/jobs", "/ui/deliveries", "/ui/costs", "/ui/platforms"}

	t.Run("no login", func(t *testing.T) {
		c := newClient(t, d)
		for _, p := range pages {
			status, body := c.get(p)
			if status != http.StatusUnauthorized || !strings.Contains(body, `action="/ui/login"`) || strings.Contains(body, "s-attack</") {
				t.Errorf("GET %s without a login = %d, want 401 with the login form and no data", p, status)
			}
		}
		if status, _ := c.post("/ui/jobs/morning-brief/run", nil); status != http.StatusUnauthorized {
			t.Errorf("POST run-now without a login = %d, want 401", status)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		c := newClient(t, d)
		for _, key := range []string{"", "wrong", testKey + "x", strings.ToUpper(testKey), testKey[:len(testKey)-1]} {
			status, body := c.post("/ui/login", url.Values{"key": {key}})
			if status != http.StatusUnauthorized || !strings.Contains(body, "That key is not one of api.keys or HERMES_API_KEY") {
				t.Errorf("login with %q = %d, want 401 saying why", key, status)
			}
		}
		if status, _ := c.get("/ui/sessions"); status != http.StatusUnauthorized {
			t.Errorf("a page after wrong keys = %d, want 401", status)
		}
	})
	t.Run("forged cookie", func(t *testing.T) {
		for _, v := range []string{testKey, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", "../../x"} {
			req, _ := http.NewRequest(http.MethodGet, "/ui/sessions", nil)
			req.AddCookie(&http.Cookie{Name: cookieName, Value: v})
			w := recorder(d, req)
			if w.Code != http.StatusUnauthorized {
				t.Errorf("a cookie of %q = %d, want 401", v, w.Code)
			}
		}
	})
	t.Run("expired", func(t *testing.T) {
		c := newClient(t, d)
		c.login(testKey)
		if status, _ := c.get("/ui/sessions"); status != http.StatusOK {
			t.Fatalf("a page after login = %d", status)
		}
		h.clock.Advance(12*time.Hour + time.Second)
		if status, _ := c.get("/ui/sessions"); status != http.StatusUnauthorized {
			t.Errorf("a page after the login expired = %d, want 401", status)
		}
	})
	t.Run("logout", func(t *testing.T) {
		c := newClient(t, d)
		c.login(testKey)
		_, body := c.get("/ui/jobs")
		if status, _ := c.post("/ui/logout", url.Values{"csrf": {csrfOf(t, body)}}); status != http.StatusSeeOther {
			t.Fatalf("logout = %d", status)
		}
		if status, _ := c.get("/ui/jobs"); status != http.StatusUnauthorized {
			t.Errorf("a page after logout = %d, want 401", status)
		}
	})
}

// TestAuthCookieHoldsNoKey checks the login cookie is a random token
// with HttpOnly and SameSite=Strict, Secure behind TLS, and never the key.
func TestAuthCookieHoldsNoKey(t *testing.T) {
	h := seed(t)
	d := New(h.opt)
	for _, tls := range []bool{false, true} {
		req, _ := http.NewRequest(http.MethodPost, "/ui/login", strings.NewReader(url.Values{"key": {testKey}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tls {
			req.Header.Set("X-Forwarded-Proto", "https")
		}
		w := recorder(d, req)
		cookies := w.Result().Cookies()
		if w.Code != http.StatusSeeOther || len(cookies) != 1 {
			t.Fatalf("login = %d with cookies %v", w.Code, cookies)
		}
		c := cookies[0]
		if c.Value == testKey || strings.Contains(c.Value, testKey) || len(c.Value) < 40 || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure != tls || c.Path != "/ui" {
			t.Errorf("cookie (tls %v) = %+v; want a random token, HttpOnly, SameSite=Strict, Secure only over TLS, path /ui", tls, c)
		}
	}
}

// TestCSRFRefusesPostsWithoutTheLoginsToken posts run-now without a
// token, with a wrong one and with another login's, and checks only the
// page's own token runs the job.
func TestCSRFRefusesPostsWithoutTheLoginsToken(t *testing.T) {
	h := seed(t)
	d := New(h.opt)
	c := newClient(t, d)
	c.login(testKey)
	other := newClient(t, d)
	other.login(testKey)
	_, otherPage := other.get("/ui/jobs")
	for _, tok := range []string{"", "x", csrfOf(t, otherPage)} {
		form := url.Values{}
		if tok != "" {
			form.Set("csrf", tok)
		}
		status, body := c.post("/ui/jobs/morning-brief/run", form)
		if status != http.StatusForbidden || !strings.Contains(body, "csrf:") {
			t.Errorf("run-now with token %q = %d %s, want 403", tok, status, body)
		}
	}
	if len(h.ran) != 0 {
		t.Fatalf("jobs ran without a valid token: %v", h.ran)
	}
	// A GET cannot run a job.
	if status, _ := c.get("/ui/jobs/morning-brief/run"); status == http.StatusSeeOther || len(h.ran) != 0 {
		t.Errorf("GET run-now = %d, ran %v", status, h.ran)
	}
}

// TestNoKeysOpensTheDashboard checks that without keys (a loopback
// listener) pages open at once, and POSTs still need the token.
func TestNoKeysOpensTheDashboard(t *testing.T) {
	h := seed(t)
	h.opt.Keys = nil
	d := New(h.opt)
	c := newClient(t, d)
	status, body := c.get("/ui/jobs")
	if status != http.StatusOK || !strings.Contains(body, "morning-brief") {
		t.Fatalf("GET /ui/jobs without keys = %d", status)
	}
	if status, _ := c.post("/ui/jobs/morning-brief/run", nil); status != http.StatusForbidden {
		t.Errorf("run-now without a token = %d, want 403", status)
	}
	if status, _ := newClient(t, d).post("/ui/jobs/morning-brief/run", nil); status != http.StatusUnauthorized {
		t.Errorf("run-now from a browser that never loaded a page = %d, want 401", status)
	}
	if status, _ := c.post("/ui/jobs/morning-brief/run", url.Values{"csrf": {csrfOf(t, body)}}); status != http.StatusSeeOther || len(h.ran) != 1 {
		t.Errorf("run-now with the token = %d, ran %v", status, h.ran)
	}
}

// TestHeadersOnEveryPage checks the Content-Security-Policy, framing and
// sniffing headers on pages, errors, the login form and static files.
func TestHeadersOnEveryPage(t *testing.T) {
	h := seed(t)
	d := New(h.opt)
	c := newClient(t, d)
	c.login(testKey)
	for _, p := range []string{"/ui/", "/ui/login", "/ui/sessions/none", "/ui/nothing", "/ui/static/live.js", "/ui/costs"} {
		resp, err := c.c.Get(c.url + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		hd := resp.Header
		csp := hd.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("%s: Content-Security-Policy = %q", p, csp)
		}
		if hd.Get("X-Frame-Options") != "DENY" || hd.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Frame-Options %q, X-Content-Type-Options %q", p, hd.Get("X-Frame-Options"), hd.Get("X-Content-Type-Options"))
		}
	}
	_, body := c.get("/ui/")
	if strings.Contains(body, "<script>") || strings.Contains(body, " onclick=") || strings.Contains(body, "style=") {
		t.Errorf("the page has inline script or style, which the policy blocks")
	}
}

// TestLoginsAreBounded logs in many more times than MaxLogins over days
// and checks the logins kept stay within their bound.
func TestLoginsAreBounded(t *testing.T) {
	h := seed(t)
	h.opt.MaxLogins = 16
	d := New(h.opt)
	for i := range 2000 {
		d.logins.add()
		if i%100 == 0 {
			h.clock.Advance(time.Hour)
		}
	}
	if n := d.logins.size(); n > 16 {
		t.Fatalf("%d logins kept, want at most 16", n)
	}
}

// TestWrongKeysAreLimited gives more wrong keys than a minute allows and
// checks that every key, the right one too, is then refused until the
// minute has passed, while a login made before goes on working.
func TestWrongKeysAreLimited(t *testing.T) {
	h := seed(t)
	d := New(h.opt)
	before := newClient(t, d)
	before.login(testKey)
	c := newClient(t, d)
	for i := range maxGuesses {
		if status, _ := c.post("/ui/login", url.Values{"key": {fmt.Sprintf("guess-%d", i)}}); status != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i, status)
		}
	}
	status, body := c.post("/ui/login", url.Values{"key": {testKey}})
	if status != http.StatusTooManyRequests || !strings.Contains(body, "wrong keys in a minute") {
		t.Errorf("the right key after %d wrong ones = %d, want 429 saying why", maxGuesses, status)
	}
	if status, _ := before.get("/ui/jobs"); status != http.StatusOK {
		t.Errorf("a login made before = %d, want 200", status)
	}
	h.clock.Advance(time.Minute)
	c.login(testKey)
}
