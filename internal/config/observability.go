package config

import (
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/netguard"
)

// Observability is the observability section: where hermes serve offers
// its metrics, and where it sends its traces.
type Observability struct {
	// MetricsListen, when set, serves /metrics on a listener of its own
	// (HOST:PORT; a bare :PORT listens on 127.0.0.1). The API's listener
	// serves /metrics too, behind its keys.
	MetricsListen string `yaml:"metrics_listen"`
	// MetricsAllowRemote allows a metrics_listen that other machines can
	// reach. That listener asks for no key, so it is refused by default.
	MetricsAllowRemote bool `yaml:"metrics_allow_remote"`
	// OTLPEndpoint, when set, exports traces of turns, model calls and
	// tool calls to this OpenTelemetry collector's OTLP/HTTP URL
	// (http://localhost:4318). Empty records no spans at all.
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// OTLPHeaders are sent with every export, such as a collector's key
	// (Authorization, x-honeycomb-team); they are secrets and never
	// shown or logged.
	OTLPHeaders map[string]Secret `yaml:"otlp_headers"`
}

// MetricsAddr is the address metrics_listen listens on: 127.0.0.1 when
// it names only a port. Empty when metrics_listen is not set.
func (o Observability) MetricsAddr() string {
	if o.MetricsListen == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(o.MetricsListen)
	if err != nil || host != "" {
		return o.MetricsListen
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// validateObservability checks the listener, the collector's URL and its
// headers.
func validateObservability(c *Config, where func(key string) string) []error {
	o := c.Observability
	var errs []error
	if o.MetricsListen != "" {
		const key = "observability.metrics_listen"
		addr := o.MetricsAddr()
		_, port, err := net.SplitHostPort(addr)
		switch {
		case err != nil || port == "":
			errs = append(errs, badValue(where(key), key, o.MetricsListen, "is not accepted; use HOST:PORT, like 127.0.0.1:9464, or :9464 for 127.0.0.1"))
		case !netguard.Loopback(addr) && !o.MetricsAllowRemote:
			errs = append(errs, badValue(where(key), key, o.MetricsListen,
				"is not accepted: other machines could read the metrics without a key; listen on 127.0.0.1, or set observability.metrics_allow_remote: true"))
		}
	}
	if o.OTLPEndpoint != "" {
		const key = "observability.otlp_endpoint"
		u, err := url.Parse(o.OTLPEndpoint)
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			errs = append(errs, badValue(where(key), key, o.OTLPEndpoint, "is not accepted; use the collector's OTLP/HTTP URL, like http://localhost:4318"))
		case u.User != nil:
			u.User = nil
			errs = append(errs, badValue(where(key), key, u.String()+" (with credentials)",
				"is not accepted: credentials do not go in the URL; send them in observability.otlp_headers"))
		}
	} else if len(o.OTLPHeaders) > 0 {
		errs = append(errs, badValue(where("observability.otlp_headers"), "observability.otlp_headers", "",
			"is set without observability.otlp_endpoint; set the endpoint, or remove the headers"))
	}
	names := make([]string, 0, len(o.OTLPHeaders))
	for name := range o.OTLPHeaders {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		key := "observability.otlp_headers." + name
		v := string(o.OTLPHeaders[name])
		switch {
		case name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) }):
			errs = append(errs, badValue(where("observability.otlp_headers"), "observability.otlp_headers", name, "is not accepted as a header name; use letters, digits and \"-\""))
		case strings.TrimSpace(v) == "" || strings.ContainsAny(v, "\r\n\x00"):
			// The value is a secret: the message names the key only.
			errs = append(errs, &FieldError{Source: where(key), Key: key, Value: Redact(v),
				Message: fmt.Sprintf("the value of %s is not accepted; a header value is one non-empty line (usually ${OTLP_KEY} from .env)", key)})
		}
	}
	return errs
}
