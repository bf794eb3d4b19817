package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/session"
)

// SessionSource is the source of the sessions the API starts; only they
// are seen through it unless Admin.AllSources says otherwise.
const SessionSource = "api"

// Admin is what the /v1/sessions and /v1/jobs endpoints work with: the
// stores the hermes sessions and hermes cron commands use, and the few
// operations that need the running hermes. Without it (a nil
// Options.Admin) those endpoints do not exist.
type Admin struct {
	// Sessions is the session store; session.Store has these methods.
	Sessions Sessions
	// AllSources opens the sessions of every source (api.sessions: all).
	// Otherwise only the API's own are seen, and the id of any other is
	// answered as one that does not exist, so a key does not even
	// confirm that a conversation on a chat platform or at the terminal
	// exists.
	AllSources bool
	// DeleteSession deletes a session unless a turn is running in it,
	// which is an *Error with status 409.
	DeleteSession func(ctx context.Context, id string) error
	// Jobs is the job store; *cron.Store has these methods.
	Jobs Jobs
	// RunJob starts the named job now and returns the id of its run,
	// already in the job's history as running.
	RunJob func(ctx context.Context, name string) (runID int64, err error)
	// Deliver are the delivery targets a job created or changed through
	// the API may name, besides local: those an operator already wrote
	// in config.yaml.
	Deliver []string
	// Redact cleans text of the secrets hermes knows before it is sent;
	// nil sends text as stored.
	Redact func(string) string
}

// Sessions is what the session endpoints read of the session store.
type Sessions interface {
	Get(ctx context.Context, id string) (*session.Session, error)
	List(ctx context.Context, opt session.ListOptions) ([]session.Session, error)
	Messages(ctx context.Context, sessionID string) ([]session.Message, error)
	Search(ctx context.Context, query string, opt session.SearchOptions) ([]session.Hit, error)
}

// Jobs is what the job endpoints use of the job store.
type Jobs interface {
	Create(ctx context.Context, j cron.Job) (cron.Job, error)
	Get(ctx context.Context, name string) (cron.Job, error)
	List(ctx context.Context) ([]cron.Job, error)
	Update(ctx context.Context, name string, spec cron.Spec) (cron.Job, error)
	Pause(ctx context.Context, name string) error
	Resume(ctx context.Context, name string) error
	Remove(ctx context.Context, name string) error
	History(ctx context.Context, job string, limit int) ([]cron.Run, error)
}

// routeAdmin adds the sessions and jobs endpoints when there is an Admin.
func (s *Server) routeAdmin() {
	if s.opt.Admin == nil {
		return
	}
	// A copy: the caller's Admin stays as it was given.
	a := *s.opt.Admin
	if a.Redact == nil {
		a.Redact = func(text string) string { return text }
	}
	s.routeSessions(&a)
	s.routeJobs(&a)
}

// writeList writes data as an OpenAI list object.
func writeList[T any](w http.ResponseWriter, data []T) {
	if data == nil {
		data = []T{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// queryInt reads the query parameter name as a whole number from lo to
// hi, def when it is absent.
func queryInt(r *http.Request, name string, def, lo, hi int) (int, *badRequest) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, &badRequest{http.StatusBadRequest, name, fmt.Sprintf("%s: %q is not accepted; use a whole number from %d to %d", name, v, lo, hi)}
	}
	return n, nil
}

// writeBad writes a request the client must fix.
func writeBad(w http.ResponseWriter, bad *badRequest) {
	typ := "invalid_request_error"
	if bad.status == http.StatusForbidden {
		typ = "permission_error"
	}
	writeError(w, bad.status, typ, bad.param, bad.msg)
}
