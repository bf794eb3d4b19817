package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxRedirects is how many redirects a guarded client follows.
const maxRedirects = 10

// Guard decides which URLs the model may make hermes fetch. A model
// that can name any URL can otherwise read the machine's own services
// (a database admin page on 127.0.0.1, a router on 192.168.1.1) or a
// cloud instance's metadata endpoint, which hands out credentials: the
// classic server-side request forgery. The zero value refuses every
// private, loopback, link-local and metadata address, and every address
// of the machine's own network interfaces.
//
// CheckURL gives an early, readable refusal; Client is the enforcement,
// since it checks the address actually connected to, after DNS, so a name
// that resolves (or re-resolves) to a private address is caught too.
//
// A Guard is safe for concurrent use; its fields must not change once
// it is in use.
type Guard struct {
	// AllowPrivate lets loopback, private, link-local and other
	// non-public addresses through (security.allow_private_urls), for
	// users whose agent is meant to talk to local services. Cloud
	// metadata endpoints stay refused even then: nothing hermes does
	// needs the instance's credentials.
	AllowPrivate bool
	// Blocklist holds host globs that are always refused: "example.com"
	// is that host only, "*.example.com" is example.com and every name
	// under it, and other patterns follow path.Match ("tracker-*.net").
	Blocklist []string
	// Allow, when set, is asked about an address the built-in rules
	// refuse; returning true lets that one connection through. It admits
	// a single local service (127.0.0.1:8080) without opening up all of
	// them with AllowPrivate. It is not asked about blocklisted hosts or
	// metadata endpoints.
	Allow func(netip.AddrPort) bool
	// TrustedHosts lists "host:port" pairs whose addresses are admitted
	// even when private: a service the user, not the model, named, such as
	// the API a declared tool's author wrote into its URL. Only the host as
	// written is trusted, so a redirect from it to another private host is
	// still refused. Blocklisted hosts and metadata endpoints stay refused.
	TrustedHosts []string
	// LocalAddrs lists the addresses of the machine's own network
	// interfaces, which are refused like private ones: a service listening
	// on them is as much the machine's own as one on 127.0.0.1, whatever
	// range the address is in. Nil means net.InterfaceAddrs; tests set it.
	LocalAddrs func() ([]netip.Addr, error)
}

// BlockedURLError is the refusal of a URL or of the address it resolved
// to. Its message is written for the model: what was refused, why, and
// how the user can change that.
type BlockedURLError struct {
	// URL is the refused URL, or host:port when the refusal happened
	// while connecting.
	URL string
	// Reason says what is wrong with it ("127.0.0.1 is a loopback
	// address").
	Reason string
	// private marks a refusal that security.allow_private_urls lifts, so
	// the message can say so.
	private bool
}

func (e *BlockedURLError) Error() string {
	msg := "refused to fetch " + e.URL + ": " + e.Reason
	if e.private {
		msg += " (requests to local and private network addresses are blocked to protect the machine's own services; if the user wants hermes to reach local services, they can set security.allow_private_urls: true)"
	}
	return msg
}

// CheckURL returns a *BlockedURLError when u may not be fetched: a scheme
// other than http or https, no host, a blocklisted host, a metadata host
// name, or a literal IP address the guard refuses. Host names are not
// resolved here; the guarded Client checks the addresses they resolve to.
func (g *Guard) CheckURL(u *url.URL) error {
	if u == nil {
		return &BlockedURLError{URL: "", Reason: "no URL given"}
	}
	shown := redactURL(u)
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return &BlockedURLError{URL: shown, Reason: "the URL has no scheme; use http:// or https://"}
	default:
		return &BlockedURLError{URL: shown, Reason: fmt.Sprintf("the scheme %q is not allowed; only http and https are", u.Scheme)}
	}
	host := u.Hostname()
	if host == "" {
		return &BlockedURLError{URL: shown, Reason: "the URL has no host"}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	if reason, private := g.hostReason(host, port); reason != "" {
		return &BlockedURLError{URL: shown, Reason: reason, private: private}
	}
	return nil
}

// Client returns an HTTP client that enforces the guard on every
// connection and every redirect, with the given overall timeout (zero
// means none). It never uses a proxy: HTTP_PROXY and friends are ignored,
// because a proxy resolves and connects on hermes's behalf, so the guard
// would see only the proxy's address and anything behind it would be
// reachable.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = g.dialContext
	tr.DialTLSContext = nil
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("stopped after %d redirects", maxRedirects)
			}
			return g.CheckURL(req.URL)
		},
	}
}

// dialContext checks the host by name, then dials with a Control hook
// that checks each resolved address just before the socket connects.
func (g *Guard) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if reason, private := g.hostReason(host, port); reason != "" {
		return nil, &BlockedURLError{URL: addr, Reason: reason, private: private}
	}
	trusted := g.trusted(host, port)
	d := &net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &BlockedURLError{URL: addr, Reason: "cannot read the address " + address + " being connected to"}
			}
			if reason, private := g.addrReason(ap, trusted); reason != "" {
				return &BlockedURLError{URL: addr, Reason: host + " resolves to " + ap.Addr().String() + ", which is " + reason, private: private}
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// hostReason says why a host (name or literal address) is refused, or
// returns ""; private reports whether AllowPrivate would admit it.
func (g *Guard) hostReason(host, port string) (reason string, private bool) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if pat, ok := g.blocked(h); ok {
		return fmt.Sprintf("the host %s matches %q in the URL blocklist", h, pat), false
	}
	if isMetadataHost(h) {
		return h + " is a cloud metadata endpoint, which is always blocked", false
	}
	trusted := g.trusted(h, port)
	if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		p, _ := strconv.ParseUint(port, 10, 16)
		if kind, private := g.addrReason(netip.AddrPortFrom(a.WithZone(""), uint16(p)), trusted); kind != "" {
			return a.WithZone("").String() + " is " + kind, private
		}
		return "", false
	}
	if numericHost(h) {
		return fmt.Sprintf("%s is an unusual numeric form of an IP address; write the address in dotted form", h), false
	}
	return "", false
}

// blocked reports the first blocklist pattern host matches.
func (g *Guard) blocked(host string) (string, bool) {
	for _, pat := range g.Blocklist {
		p := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(pat)), ".")
		if p == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "*."); ok && (host == rest || strings.HasSuffix(host, "."+rest)) {
			return pat, true
		}
		if ok, _ := path.Match(p, host); ok {
			return pat, true
		}
	}
	return "", false
}

// addrReason says what kind of address the guard refuses a is ("a
// loopback address"), or returns ""; trusted says the address belongs to
// one of TrustedHosts. private reports whether AllowPrivate would admit
// it.
func (g *Guard) addrReason(ap netip.AddrPort, trusted bool) (reason string, private bool) {
	a := ap.Addr()
	if isMetadataAddr(a) {
		return "a cloud metadata endpoint, which is always blocked", false
	}
	if g.AllowPrivate || trusted {
		return "", false
	}
	kind := AddrKind(a)
	if kind == "" {
		kind = g.localKind(a)
	}
	if kind == "" || (g.Allow != nil && g.Allow(ap)) {
		return "", false
	}
	return kind, true
}

// trusted reports whether host (lower case, without a trailing dot) and
// port are one of TrustedHosts.
func (g *Guard) trusted(host, port string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	for _, hp := range g.TrustedHosts {
		h, p, err := net.SplitHostPort(hp)
		if err == nil && p == port && strings.TrimSuffix(strings.ToLower(h), ".") == host {
			return true
		}
	}
	return false
}

// IsBlocked reports whether err, or an error it wraps, is a guard
// refusal, as opposed to a network failure.
func IsBlocked(err error) (*BlockedURLError, bool) {
	var b *BlockedURLError
	ok := errors.As(err, &b)
	return b, ok
}

// redactURL shows u without its password, since the URL is repeated to
// the model and the logs.
func redactURL(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	if _, ok := u.User.Password(); !ok {
		return u.String()
	}
	c := *u
	c.User = url.UserPassword(u.User.Username(), "REDACTED")
	return c.String()
}
