package browser

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/tool"
)

// checkResolved checks u with the guard, then resolves its host and checks
// every address it resolves to, since Chromium connects on its own and the
// guard's dialer never sees those connections. A failed lookup passes:
// Chromium's own lookup will fail the same way and say so. The check is
// only as good as the lookup it makes: a name that resolves differently
// when Chromium asks a moment later is not caught.
func checkResolved(ctx context.Context, g *netguard.Guard, u *url.URL) error {
	if err := g.CheckURL(u); err != nil {
		return err
	}
	host := u.Hostname()
	if net.ParseIP(host) != nil {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		v := *u
		h := a.Unmap().WithZone("").String()
		if a.Unmap().Is6() {
			h = "[" + h + "]"
		}
		if p := u.Port(); p != "" {
			h += ":" + p
		}
		v.Host = h
		if err := g.CheckURL(&v); err != nil {
			return &resolvedError{host: host, err: err}
		}
	}
	return nil
}

// resolvedError says which name led to a refused address.
type resolvedError struct {
	host string
	err  error
}

func (e *resolvedError) Error() string {
	return e.host + " resolves to a refused address: " + e.err.Error()
}
func (e *resolvedError) Unwrap() error { return e.err }

// checkNavigation parses and checks a URL the model asked to open. A URL
// without a scheme gets https://, as a browser's address bar would.
func checkNavigation(ctx context.Context, g *netguard.Guard, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", tool.Errorf(tool.CodeInvalidArguments, "url is empty; give an http or https URL")
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "about:") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "cannot parse the URL %q: %v", raw, err)
	}
	if err := checkResolved(ctx, g, u); err != nil {
		return "", tool.Errorf(tool.CodeDenied, "%v", err)
	}
	return u.String(), nil
}
