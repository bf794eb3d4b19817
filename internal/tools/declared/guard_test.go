package declared

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// hostTool takes the host of its URL from the model, the shape of a
// server-side request forgery.
const hostTool = `tools:
  - name: fetch_x
    description: Fetch /x from a host.
    parameters: {type: object, properties: {host: {type: string}}, required: [host]}
    http: {url: "http://{{.host}}/x"}
`

// ownAddrServer is an API listening on one of the machine's own
// non-loopback addresses, one outside the private ranges when there is
// one; nil when there is none to listen on.
func ownAddrServer(t *testing.T) *apiServer {
	t.Helper()
	nets, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("cannot list interfaces: %v", err)
	}
	var addrs []netip.Addr
	for _, n := range nets {
		ipn, ok := n.(*net.IPNet)
		if !ok {
			continue
		}
		a, _ := netip.AddrFromSlice(ipn.IP)
		a = a.Unmap()
		if !a.IsValid() || a.IsLoopback() || a.IsLinkLocalUnicast() {
			continue
		}
		if netguard.AddrKind(a) == "" {
			addrs = append([]netip.Addr{a}, addrs...)
		} else {
			addrs = append(addrs, a)
		}
	}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String())
		if err != nil {
			continue
		}
		s := &apiServer{}
		s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.reqs = append(s.reqs, recorded{method: r.Method, path: r.URL.Path})
			s.mu.Unlock()
			w.Write([]byte("ok"))
		}))
		s.Listener = ln
		s.Start()
		t.Cleanup(s.Close)
		return s
	}
	return nil
}

// A URL whose host the model fills in cannot reach the machine's own
// services, on loopback or on the machine's other addresses, unless
// security.allow_private_urls is set.
func TestHTTPToolHostFromModelIsGuarded(t *testing.T) {
	targets := []*apiServer{newAPI(t, jsonReply(200, `{"ok":true}`))}
	if own := ownAddrServer(t); own != nil {
		targets = append(targets, own)
	}
	h := newHome(t)
	h.load("x.yaml", hostTool)
	open := newGuardedHome(t, &netguard.Guard{AllowPrivate: true})
	open.load("x.yaml", hostTool)
	for _, api := range targets {
		host := strings.TrimPrefix(api.URL, "http://")
		o, _ := h.run(context.Background(), "fetch_x", `{"host":"`+host+`"}`)
		if o.Result.Status == tool.StatusOK || o.Result.ErrorCode != tool.CodeDenied || !strings.Contains(o.Result.Message, "allow_private_urls") {
			t.Errorf("fetch_x(%s) = %s %s: %s; want denied by the URL guard", host, o.Result.Status, o.Result.ErrorCode, o.Result.Message)
		}
		if n := len(api.requests()); n != 0 {
			t.Errorf("%s got %d requests through the guard", host, n)
		}
		open.call(context.Background(), "fetch_x", `{"host":"`+host+`"}`)
		if n := len(api.requests()); n != 1 {
			t.Errorf("with allow_private_urls %s got %d requests, want 1", host, n)
		}
	}
}

// The host the author wrote into the URL (here through ${API}) is
// reachable although private, but a redirect from it to another private
// host is refused, since the model may steer where the redirect goes.
func TestHTTPToolAuthorsHostOnly(t *testing.T) {
	other := newAPI(t, jsonReply(200, `{"secret":"internal"}`))
	api := newAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/go" {
			http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/admin", http.StatusFound)
			return
		}
		jsonReply(200, `{"items":[1]}`)(w, r)
	})
	h := newHome(t)
	h.env["API"] = api.URL
	h.load("a.yaml", `tools:
  - name: get_path
    description: Get a path of the API.
    parameters: {type: object, properties: {p: {type: string}}, required: [p]}
    http: {url: "${API}/{{.p}}"}
`)
	got := h.call(context.Background(), "get_path", `{"p":"items"}`)
	if m, _ := got.(map[string]any); m["status"] != float64(200) {
		t.Errorf("the author's host: %v", got)
	}
	o, _ := h.run(context.Background(), "get_path", `{"p":"go"}`)
	if o.Result.ErrorCode != tool.CodeDenied || !strings.Contains(o.Result.Message, "loopback") {
		t.Errorf("redirect to another private host: %s %s: %s", o.Result.Status, o.Result.ErrorCode, o.Result.Message)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

func TestFixedHost(t *testing.T) {
	cases := []struct {
		prefix string
		whole  bool
		final  string
		want   string
	}{
		{"http://127.0.0.1:8080/orders", false, "http://127.0.0.1:8080/orders/7", "127.0.0.1:8080"},
		{"https://API.example.com./v1/", false, "https://api.example.com/v1/x", "api.example.com:443"},
		{"http://api.example.com?q=", false, "http://api.example.com?q=1", "api.example.com:80"},
		{"http://api.example.com", true, "http://api.example.com", "api.example.com:80"},
		{"http://[::1]:9/x", false, "http://[::1]:9/x/y", "[::1]:9"},
		{"http://", false, "http://127.0.0.1/x", ""},
		{"http://api.example.com", false, "http://api.example.com.evil.test/", ""},
		{"http://user:", false, "http://user:pw@127.0.0.1/", ""},
		{"/relative/", false, "http://127.0.0.1/relative/", ""},
		{"http://a.example/", false, "http://b.example/", ""},
		{"http://a.example/", false, "https://a.example/", ""},
	}
	for _, c := range cases {
		u, err := url.Parse(c.final)
		if err != nil {
			t.Fatal(err)
		}
		if got := fixedHost(c.prefix, c.whole, u); got != c.want {
			t.Errorf("fixedHost(%q, %v, %s) = %q, want %q", c.prefix, c.whole, c.final, got, c.want)
		}
	}
}
