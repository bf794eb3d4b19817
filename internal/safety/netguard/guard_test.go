package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	def := &Guard{}
	open := &Guard{AllowPrivate: true, Blocklist: []string{"*.tracker.example", "ads.example.net", "cdn-*.example.org"}}
	cases := []struct {
		url         string
		def, open   bool // allowed by the default guard, by open
		wantMention string
	}{
		{"https://example.com/page", true, true, ""},
		{"http://93.184.216.34/", true, true, ""},
		{"http://[2606:2800:220:1:248:1893:25c8:1946]/", true, true, ""},
		{"ftp://example.com/file", false, false, "scheme"},
		{"file:///etc/passwd", false, false, "scheme"},
		{"gopher://127.0.0.1:6379/", false, false, "scheme"},
		{"example.com/no-scheme", false, false, "scheme"},
		{"http:///path", false, false, "no host"},
		{"http://127.0.0.1:8080/", false, true, "loopback"},
		{"http://127.9.9.9/", false, true, "loopback"},
		{"http://[::1]/", false, true, "loopback"},
		{"http://10.0.0.1/", false, true, "RFC 1918"},
		{"http://172.16.5.4/", false, true, "RFC 1918"},
		{"http://172.32.0.1/", true, true, ""},
		{"http://192.168.1.1/", false, true, "RFC 1918"},
		{"http://169.254.1.1/", false, true, "link-local"},
		{"http://[fe80::1%25eth0]/", false, true, "link-local"},
		{"http://100.64.0.1/", false, true, "carrier-grade"},
		{"http://[fc00::1]/", false, true, "unique-local"},
		{"http://[fd12:3456::1]/", false, true, "unique-local"},
		{"http://224.0.0.1/", false, true, "multicast"},
		{"http://[ff02::1]/", false, true, "multicast"},
		{"http://0.0.0.0/", false, true, "unspecified"},
		{"http://[::]/", false, true, "unspecified"},
		{"http://0.1.2.3/", false, true, "this network"},
		{"http://255.255.255.255/", false, true, "broadcast"},
		{"http://[::ffff:127.0.0.1]/", false, true, "loopback"},
		{"http://[::ffff:10.1.2.3]/", false, true, "RFC 1918"},
		{"http://[::ffff:169.254.169.254]/", false, false, "metadata"},
		{"http://[64:ff9b::7f00:1]/", false, true, "loopback"},
		{"http://[2002:c0a8:101::1]/", false, true, "192.168.1.1"},
		{"http://169.254.169.254/latest/meta-data/", false, false, "metadata"},
		{"http://[fd00:ec2::254]/", false, false, "metadata"},
		{"http://metadata.google.internal/computeMetadata/v1/", false, false, "metadata"},
		{"http://METADATA.google.internal./", false, false, "metadata"},
		{"http://metadata/", false, false, "metadata"},
		{"http://instance-data/", false, false, "metadata"},
		{"http://metadata.azure.com/", false, false, "metadata"},
		{"http://2130706433/", false, false, "numeric"},
		{"http://0x7f000001/", false, false, "numeric"},
		{"http://127.1/", false, false, "numeric"},
		{"http://a.tracker.example/x", true, false, "blocklist"},
		{"http://tracker.example/x", true, false, "blocklist"},
		{"http://nottracker.example/x", true, true, ""},
		{"http://ads.example.net/", true, false, "blocklist"},
		{"http://cdn-7.example.org/", true, false, "blocklist"},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		for _, g := range []struct {
			guard *Guard
			want  bool
		}{{def, c.def}, {open, c.open}} {
			err := g.guard.CheckURL(u)
			if (err == nil) != g.want {
				t.Errorf("CheckURL(%s) with AllowPrivate=%v: %v, want allowed=%v", c.url, g.guard.AllowPrivate, err, g.want)
				continue
			}
			if err == nil {
				continue
			}
			if _, ok := IsBlocked(err); !ok {
				t.Errorf("CheckURL(%s) error %T is not a *BlockedURLError", c.url, err)
			}
			if !strings.Contains(err.Error(), c.wantMention) {
				t.Errorf("CheckURL(%s) = %q, want it to mention %q", c.url, err, c.wantMention)
			}
		}
	}
}

func TestBlockedMessage(t *testing.T) {
	err := (&Guard{}).CheckURL(mustURL(t, "http://user:hunter2hunter2@127.0.0.1/"))
	msg := err.Error()
	for _, want := range []string{"refused", "loopback", "security.allow_private_urls: true"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not mention %q", msg, want)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("message repeats the URL's password: %q", msg)
	}
	err = (&Guard{}).CheckURL(mustURL(t, "http://169.254.169.254/"))
	if strings.Contains(err.Error(), "allow_private_urls") {
		t.Errorf("metadata refusal suggests allow_private_urls, which would not help: %q", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func okServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String(), nil
}

func wantBlocked(t *testing.T, err error, mention string) {
	t.Helper()
	b, ok := IsBlocked(err)
	if !ok {
		t.Fatalf("error = %v, want a *BlockedURLError", err)
	}
	if !strings.Contains(b.Error(), mention) {
		t.Errorf("refusal %q does not mention %q", b, mention)
	}
}

func TestClientLoopback(t *testing.T) {
	srv := okServer(t)
	_, err := get((&Guard{}).Client(5*time.Second), srv.URL)
	wantBlocked(t, err, "loopback")

	body, err := get((&Guard{AllowPrivate: true}).Client(5*time.Second), srv.URL)
	if err != nil || body != "hello" {
		t.Fatalf("AllowPrivate: body %q, err %v", body, err)
	}
}

// A name that looks public but resolves to loopback must be caught when
// connecting, where the resolved address is known.
func TestClientChecksResolvedAddress(t *testing.T) {
	srv := okServer(t)
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]

	c := (&Guard{}).Client(5 * time.Second)
	tr := c.Transport.(*http.Transport)
	dial := tr.DialContext
	// Stand in for a DNS answer: the name passes every check by name and
	// reaches the guarded dialer as 127.0.0.1.
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.HasPrefix(addr, "rebind.example.com:") {
			addr = "127.0.0.1:" + port
		}
		return dial(ctx, network, addr)
	}
	_, err := get(c, "http://rebind.example.com:"+port+"/")
	wantBlocked(t, err, "loopback")

	// localhost resolves through the system resolver.
	_, err = get((&Guard{}).Client(5*time.Second), "http://localhost:"+port+"/")
	wantBlocked(t, err, "resolves to")
}

func TestClientRedirects(t *testing.T) {
	target := okServer(t)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := target.URL
		if r.URL.Path == "/by-name" {
			to = strings.Replace(target.URL, "127.0.0.1", "localhost", 1)
		}
		http.Redirect(w, r, to, http.StatusFound)
	}))
	defer first.Close()
	firstAddr := netip.MustParseAddrPort(strings.TrimPrefix(first.URL, "http://"))
	g := &Guard{Allow: func(ap netip.AddrPort) bool { return ap == firstAddr }}

	_, err := get(g.Client(5*time.Second), first.URL+"/")
	wantBlocked(t, err, "loopback")
	_, err = get(g.Client(5*time.Second), first.URL+"/by-name")
	wantBlocked(t, err, "loopback")

	body, err := get((&Guard{AllowPrivate: true}).Client(5*time.Second), first.URL+"/")
	if err != nil || body != "hello" {
		t.Fatalf("AllowPrivate redirect: body %q, err %v", body, err)
	}
}

func TestClientRedirectLimit(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+"/again", http.StatusFound)
	}))
	defer srv.Close()
	_, err := get((&Guard{AllowPrivate: true}).Client(5*time.Second), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "10 redirects") {
		t.Fatalf("err = %v, want a redirect limit", err)
	}
}

func TestClientIgnoresProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://proxy.invalid:3128")
	t.Setenv("http_proxy", "http://proxy.invalid:3128")
	srv := okServer(t)
	body, err := get((&Guard{AllowPrivate: true}).Client(5*time.Second), srv.URL)
	if err != nil || body != "hello" {
		t.Fatalf("body %q, err %v; the proxy from the environment must not be used", body, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatal("timed out")
	}
}

func TestAddrKindPublic(t *testing.T) {
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "172.15.255.255", "100.128.0.1", "2001:4860:4860::8888", "2002:808:808::1", "64:ff9b::808:808"} {
		if k := AddrKind(netip.MustParseAddr(s)); k != "" {
			t.Errorf("AddrKind(%s) = %q, want public", s, k)
		}
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8642": true, "localhost:1": true, "[::1]:8765": true, "127.9.9.9:80": true,
		"0.0.0.0:8642": false, ":8642": false, "[::]:80": false, "10.0.0.5:80": false,
		"example.com:80": false, "127.0.0.1": false, "localhost.evil.example:80": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
