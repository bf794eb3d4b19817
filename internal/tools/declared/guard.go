package declared

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// clients hands out the guarded HTTP clients http tools send with. A
// request goes through the URL guard (netguard) like http_request's, after
// templating and on every redirect, so a model that fills in a URL cannot
// make a declared tool fetch the machine's own services or a cloud
// metadata endpoint. The one host a request may reach although private is
// the host the tool's author wrote into the URL (see fixedHost): the user
// named that service, not the model. Each such host gets a client of its
// own, so a connection opened to it is never reused for a request the
// guard would refuse.
type clients struct {
	guard *netguard.Guard

	mu     sync.Mutex
	byHost map[string]*http.Client // by trusted host:port; "" is none
}

func newClients(g *netguard.Guard) *clients {
	if g == nil {
		g = &netguard.Guard{}
	}
	return &clients{guard: g, byHost: map[string]*http.Client{}}
}

// guardFor returns the guard for requests whose author-written host is
// trusted ("" for none).
func (c *clients) guardFor(trusted string) *netguard.Guard {
	if trusted == "" {
		return c.guard
	}
	g := *c.guard
	g.TrustedHosts = append(append([]string(nil), c.guard.TrustedHosts...), trusted)
	return &g
}

// client returns the client for requests whose author-written host is
// trusted ("" for none). Calls set their timeouts on the request's
// context, so the client has none.
func (c *clients) client(trusted string) *http.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.byHost[trusted]
	if cl == nil {
		cl = c.guardFor(trusted).Client(0)
		c.byHost[trusted] = cl
	}
	return cl
}

// check refuses a rendered request the guard would refuse, before anyone
// is asked to approve it; the client enforces the same rules again when
// it connects, after DNS.
func (c *clients) check(r *httpRequest) error {
	u, err := url.Parse(r.url)
	if err != nil {
		return tool.Errorf(tool.CodeInternal, "the rendered URL does not parse: %v", err)
	}
	if err := c.guardFor(r.trusted).CheckURL(u); err != nil {
		return &tool.Error{Code: tool.CodeDenied, Message: err.Error()}
	}
	return nil
}

// fixedHost returns the host:port the tool's author fixed in the URL, or
// "". prefix is the URL template's text before its first action, with the
// ${NAME} references resolved; whole says the template has no action at
// all. The host is fixed when prefix holds the scheme and the whole
// authority, ended by "/", "?" or "#" (or by the end of a URL without
// actions), so that no argument can change where the request goes. The
// final URL must still name that host.
func fixedHost(prefix string, whole bool, final *url.URL) string {
	i := strings.Index(prefix, "://")
	if i < 0 {
		return ""
	}
	end := len(prefix)
	if j := strings.IndexAny(prefix[i+3:], "/?#"); j >= 0 {
		end = i + 3 + j
	} else if !whole {
		return ""
	}
	u, err := url.Parse(prefix[:end])
	if err != nil || u.Host == "" || !strings.EqualFold(u.Scheme, final.Scheme) {
		return ""
	}
	host, port := hostPort(u)
	if fh, fp := hostPort(final); fh != host || fp != port {
		return ""
	}
	return net.JoinHostPort(host, port)
}

// hostPort is u's host, lower case, and its port, defaulted from the
// scheme.
func hostPort(u *url.URL) (string, string) {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port
}
