package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// API is the api section: the OpenAI-compatible HTTP server hermes serve
// runs when it is enabled, so that any OpenAI client can talk to hermes.
type API struct {
	// Enabled starts the server in hermes serve (off by default).
	Enabled bool `yaml:"enabled"`
	// Listen is the address it answers on (127.0.0.1:8642 by default); an
	// address other hosts can reach needs a key.
	Listen string `yaml:"listen"`
	// Keys are the bearer tokens a client may send; HERMES_API_KEY adds
	// one. With none, only a loopback listen is allowed.
	Keys []Secret `yaml:"keys"`
	// CORSOrigins are the browser origins allowed to call the API
	// (https://chat.example.com); none allows no cross-origin call.
	CORSOrigins []string `yaml:"cors_origins"`
	// MaxConcurrentRuns caps the turns running at once (8); a request
	// beyond gets 429.
	MaxConcurrentRuns int `yaml:"max_concurrent_runs"`
	// MaxBodyBytes caps a request body (10 MB), images included.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// Sessions is which sessions /v1/sessions shows and deletes: "api"
	// (the default), only those the API started, so a key does not open
	// the conversations held on chat platforms or at the terminal; or
	// "all", for an operator who wants every source through the API.
	Sessions string `yaml:"sessions"`
	// Advertise is the URL the other replicas of a shared database reach
	// this one's API at (http://10.0.0.5:8642): a request about a run
	// another replica holds is passed to it there. Empty means
	// http://LISTEN, with this machine's name for a listen on every
	// address (0.0.0.0 or [::]).
	Advertise string `yaml:"advertise"`
}

// AdvertisedURL is the URL other replicas reach this API at: Advertise,
// or one made from Listen and host, this machine's name.
func (a API) AdvertisedURL(host string) string {
	if a.Advertise != "" {
		return strings.TrimRight(a.Advertise, "/")
	}
	h, port, err := net.SplitHostPort(a.Listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(h); h == "" || ip != nil && ip.IsUnspecified() {
		h = host
	}
	return "http://" + net.JoinHostPort(h, port)
}

// The values of api.sessions.
const (
	APISessionsAPI = "api"
	APISessionsAll = "all"
)

// defaultAPI is the api section before the configuration is read.
func defaultAPI() API {
	return API{Listen: "127.0.0.1:8642", MaxConcurrentRuns: 8, MaxBodyBytes: 10 << 20, Sessions: APISessionsAPI}
}

// validateAPI checks the api section's address, limits and origins.
func validateAPI(a *API, where func(key string) string) []error {
	var errs []error
	if _, _, err := net.SplitHostPort(a.Listen); err != nil {
		errs = append(errs, badValue(where("api.listen"), "api.listen", a.Listen, "is not accepted; use HOST:PORT, like 127.0.0.1:8642"))
	}
	if a.MaxConcurrentRuns < 1 {
		errs = append(errs, badValue(where("api.max_concurrent_runs"), "api.max_concurrent_runs", fmt.Sprint(a.MaxConcurrentRuns), "is not accepted; use a number of turns of 1 or more"))
	}
	if a.MaxBodyBytes < 1024 {
		errs = append(errs, badValue(where("api.max_body_bytes"), "api.max_body_bytes", fmt.Sprint(a.MaxBodyBytes), "is not accepted; use a size in bytes of 1024 or more"))
	}
	if a.Sessions != APISessionsAPI && a.Sessions != APISessionsAll {
		errs = append(errs, badValue(where("api.sessions"), "api.sessions", a.Sessions, "is not accepted; use api (only the sessions the API started) or all (every source)"))
	}
	for i, k := range a.Keys {
		if strings.TrimSpace(string(k)) == "" {
			key := fmt.Sprintf("api.keys[%d]", i)
			errs = append(errs, badValue(where(key), key, "", "is not accepted; a key is a non-empty token (usually ${HERMES_API_KEY} from .env)"))
		}
	}
	if a.Advertise != "" {
		if !isOrigin(a.Advertise) {
			errs = append(errs, badValue(where("api.advertise"), "api.advertise", a.Advertise, "is not accepted; use the URL other replicas reach this API at, scheme, host and port, like http://10.0.0.5:8642"))
		}
	}
	for i, o := range a.CORSOrigins {
		if !isOrigin(o) {
			key := fmt.Sprintf("api.cors_origins[%d]", i)
			errs = append(errs, badValue(where(key), key, o, "is not accepted; use an origin like https://chat.example.com (scheme and host, no path, no *)"))
		}
	}
	return errs
}

// isOrigin reports whether s is an http(s) origin: a scheme and a host
// (and port), no path beyond "/".
func isOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && (u.Path == "" || u.Path == "/")
}
