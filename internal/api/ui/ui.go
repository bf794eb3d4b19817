// Package ui is hermes's web dashboard, which hermes serve shows at /ui on
// the API's listener: the turns running now and the recent ones with
// their tool calls, the sessions and their search, the cron jobs with a
// run-now button, the deliveries that failed, the costs and the gateway's
// platforms. Pages are rendered on the server from embedded templates and
// the one script only reloads a page, so a strict Content-Security-Policy
// holds and no build step or CDN is needed. Everything a page shows is
// read from the stores when it is asked for; the little the dashboard
// keeps in memory (logins, the platforms' health) is bounded in number
// and age, so it does not grow a process that runs for months.
package ui

import (
	"context"
	"crypto/sha256"
	"embed"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/session"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/ui"

//go:embed templates/*.html static/*
var files embed.FS

// Sessions is what the dashboard reads of the session store;
// session.Store has these methods.
type Sessions interface {
	Get(ctx context.Context, id string) (*session.Session, error)
	List(ctx context.Context, opt session.ListOptions) ([]session.Session, error)
	Messages(ctx context.Context, sessionID string) ([]session.Message, error)
	Search(ctx context.Context, query string, opt session.SearchOptions) ([]session.Hit, error)
}

// LastMessager is a Sessions that reads a session's newest messages
// alone (*sqlite.Store does); with it a page costs the same however long
// its sessions grew.
type LastMessager interface {
	LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error)
}

// Jobs is what the dashboard reads of the job store; *cron.Store has
// these methods.
type Jobs interface {
	List(ctx context.Context) ([]cron.Job, error)
	History(ctx context.Context, job string, limit int) ([]cron.Run, error)
}

// Live is a session a turn is running in now.
type Live struct {
	SessionID string
	// Holder is the process running it (host/pid).
	Holder string
}

// Cost is what the model calls of one UTC day, one user (of one tenant)
// and one model cost; User and Tenant are empty for the local owner.
type Cost struct {
	Day          time.Time
	User, Tenant string
	Model        string
	CostUSD      float64
	Tokens       int64
}

// Failure is a message hermes could not deliver.
type Failure struct {
	Time     time.Time
	Where    string
	Text     string
	Error    string
	Attempts int
}

// Platform is a gateway platform (or webhook route) and its health.
type Platform struct {
	Name   string
	OK     bool
	Detail string
}

// Options configures a Dashboard. Sessions is required; a page whose
// source is nil says the feature is off.
type Options struct {
	// Keys are the API's keys; one of them, given once at the login
	// form, opens the dashboard. With none, the dashboard is open (the
	// API allows that only on a loopback address).
	Keys []string
	// Source, when set, is the only source whose sessions the dashboard
	// shows (api, as the API's /v1/sessions shows by default), so a key
	// opens no more conversations here than through the API; any other
	// session is answered as one that does not exist. Empty shows every
	// source.
	Source   string
	Sessions Sessions
	Jobs     Jobs
	// RunJob starts a job now, as hermes cron run and POST
	// /v1/jobs/{name}/run do, and returns its run's id.
	RunJob func(ctx context.Context, name string) (int64, error)
	// Live lists the sessions turns are running in.
	Live func(ctx context.Context) ([]Live, error)
	// Costs sums the costs per day, user, tenant and model since a time.
	Costs func(ctx context.Context, since time.Time) ([]Cost, error)
	// Failures lists the newest messages that could not be delivered,
	// at most limit.
	Failures func(ctx context.Context, limit int) ([]Failure, error)
	// Platforms checks the gateway's platforms; it may be slow (it asks
	// each platform), so its answer is kept for PlatformsTTL.
	Platforms func(ctx context.Context) ([]Platform, error)
	// Redact cleans every stored text of the secrets hermes knows before
	// a page shows it; nil shows text as stored.
	Redact func(string) string
	// LoginTTL is how long a login lasts; 0 means 12 hours.
	LoginTTL time.Duration
	// MaxLogins caps the logins kept, the oldest forgotten first; 0
	// means 256.
	MaxLogins int
	// PlatformsTTL is how long the platforms' health is kept; 0 means a
	// minute.
	PlatformsTTL time.Duration
	Clock        clock.Clock
	Logger       *slog.Logger
}

// Dashboard serves the pages under Prefix.
type Dashboard struct {
	opt       Options
	keys      [][sha256.Size]byte
	logins    *logins
	guesses   *guesses
	platforms *kept[[]Platform]
	pages     map[string]*template.Template
	mux       *http.ServeMux
}

// New returns the dashboard of opt.
func New(opt Options) *Dashboard {
	opt.Clock = clock.OrReal(opt.Clock)
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Redact == nil {
		opt.Redact = func(s string) string { return s }
	}
	if opt.LoginTTL <= 0 {
		opt.LoginTTL = 12 * time.Hour
	}
	if opt.MaxLogins <= 0 {
		opt.MaxLogins = 256
	}
	if opt.PlatformsTTL <= 0 {
		opt.PlatformsTTL = time.Minute
	}
	d := &Dashboard{opt: opt, logins: newLogins(opt.Clock, opt.LoginTTL, opt.MaxLogins), guesses: &guesses{clock: opt.Clock},
		platforms: &kept[[]Platform]{clock: opt.Clock, ttl: opt.PlatformsTTL}, pages: parsePages(), mux: http.NewServeMux()}
	for _, k := range opt.Keys {
		d.keys = append(d.keys, sha256.Sum256([]byte(k)))
	}
	d.route()
	return d
}

func (d *Dashboard) route() {
	d.mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix, http.FileServerFS(files)))
	d.mux.HandleFunc("GET "+Prefix+"/login", d.loginPage)
	d.mux.HandleFunc("POST "+Prefix+"/login", d.login)
	d.mux.HandleFunc("POST "+Prefix+"/logout", d.authed(d.logout))
	d.mux.HandleFunc("GET "+Prefix+"/{$}", d.authed(d.turns))
	d.mux.HandleFunc("GET "+Prefix+"/turns", d.authed(d.turns))
	d.mux.HandleFunc("GET "+Prefix+"/sessions", d.authed(d.sessions))
	d.mux.HandleFunc("GET "+Prefix+"/sessions/{id}", d.authed(d.session))
	d.mux.HandleFunc("GET "+Prefix+"/jobs", d.authed(d.jobs))
	d.mux.HandleFunc("POST "+Prefix+"/jobs/{name}/run", d.authed(d.runJob))
	d.mux.HandleFunc("GET "+Prefix+"/deliveries", d.authed(d.deliveries))
	d.mux.HandleFunc("GET "+Prefix+"/costs", d.authed(d.costs))
	d.mux.HandleFunc("GET "+Prefix+"/platforms", d.authed(d.platformsPage))
	d.mux.HandleFunc(Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, r.Method+" "+r.URL.Path+" is not a page of the dashboard; start at "+Prefix+"/", http.StatusNotFound)
	})
}

// csp allows the dashboard's own script, style and images and nothing
// else: no inline script, no framing, no form posting elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// ServeHTTP sets the safety headers of every page and serves it.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if r.URL.Path == Prefix {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	d.mux.ServeHTTP(w, r)
}
