package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// The machine's own addresses are refused whatever range they are in: a
// service listening on every interface answers on them as on 127.0.0.1.
func TestOwnAddressesArePrivate(t *testing.T) {
	own := func() ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("2001:db8::7")}, nil
	}
	g := &Guard{LocalAddrs: own}
	for _, u := range []string{"http://203.0.113.7/", "https://203.0.113.7:8443/x", "http://[2001:db8::7]/", "http://[::ffff:203.0.113.7]/"} {
		err := g.CheckURL(mustURL(t, u))
		if err == nil || !strings.Contains(err.Error(), "this machine") || !strings.Contains(err.Error(), "allow_private_urls") {
			t.Errorf("CheckURL(%s) = %v, want refused as the machine's own address", u, err)
		}
	}
	if err := g.CheckURL(mustURL(t, "http://203.0.113.8/")); err != nil {
		t.Errorf("another public address refused: %v", err)
	}
	open := &Guard{LocalAddrs: own, AllowPrivate: true}
	if err := open.CheckURL(mustURL(t, "http://203.0.113.7/")); err != nil {
		t.Errorf("AllowPrivate refuses the machine's own address: %v", err)
	}
	broken := &Guard{LocalAddrs: func() ([]netip.Addr, error) { return nil, errors.New("netlink unavailable") }}
	if err := broken.CheckURL(mustURL(t, "http://203.0.113.8/")); err == nil || !strings.Contains(err.Error(), "cannot be listed") {
		t.Errorf("unknown own addresses: %v, want refused", err)
	}
}

// ownListener listens on one of the machine's non-loopback addresses,
// preferring one outside every private range (the case only the
// interface list can catch).
func ownListener(t *testing.T) net.Listener {
	t.Helper()
	addrs, err := interfaceAddrs()
	if err != nil {
		t.Skipf("cannot list interfaces: %v", err)
	}
	var pick []netip.Addr
	for _, a := range addrs {
		if a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() {
			continue
		}
		if AddrKind(a) == "" {
			pick = append([]netip.Addr{a}, pick...)
		} else {
			pick = append(pick, a)
		}
	}
	for _, a := range pick {
		if ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String()); err == nil {
			return ln
		}
	}
	t.Skip("no non-loopback address to listen on")
	return nil
}

func TestClientRefusesOwnInterfaceAddress(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello")) }))
	srv.Listener = ownListener(t)
	srv.Start()
	defer srv.Close()
	_, err := get((&Guard{}).Client(5*time.Second), srv.URL)
	if _, ok := IsBlocked(err); !ok {
		t.Fatalf("GET %s (this machine's own address) = %v, want refused", srv.URL, err)
	}
	body, err := get((&Guard{AllowPrivate: true}).Client(5*time.Second), srv.URL)
	if err != nil || body != "hello" {
		t.Fatalf("AllowPrivate: body %q, err %v", body, err)
	}
}

// A trusted host is reachable although private; a redirect from it to
// another private host is not, nor is a metadata endpoint ever.
func TestTrustedHosts(t *testing.T) {
	target := okServer(t)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, strings.Replace(target.URL, "127.0.0.1", "localhost", 1), http.StatusFound)
			return
		}
		if r.URL.Path == "/again" {
			w.Write([]byte("again"))
			return
		}
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	defer first.Close()
	g := &Guard{TrustedHosts: []string{strings.TrimPrefix(first.URL, "http://")}}
	body, err := get(g.Client(5*time.Second), first.URL+"/")
	if err != nil || body != "again" {
		t.Fatalf("trusted host with a redirect to itself: body %q, err %v", body, err)
	}
	_, err = get(g.Client(5*time.Second), first.URL+"/away")
	wantBlocked(t, err, "loopback")
	_, err = get(g.Client(5*time.Second), target.URL)
	wantBlocked(t, err, "loopback")

	meta := &Guard{TrustedHosts: []string{"169.254.169.254:80", "metadata.google.internal:80"}}
	for _, u := range []string{"http://169.254.169.254/", "http://metadata.google.internal/"} {
		if err := meta.CheckURL(mustURL(t, u)); err == nil || !strings.Contains(err.Error(), "metadata") {
			t.Errorf("trusted metadata endpoint %s: %v, want refused", u, err)
		}
	}
}
