package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// A run lives in the replica that started it: its turn, its events and
// its pending approvals are in that process. Behind a load balancer the
// requests about a run reach any replica, so each run's id names the
// replica that holds it ("run_<replica>_<random>"), and a replica that
// does not know a run passes the request, as it came (its key too, which
// the holder checks again), to the replica the id names, found on the
// roll of replicas in the shared database. The events then stream
// through. A request passed on is never passed on again.

// forwardedHeader marks a request passed on by another replica, with
// that replica's name.
const forwardedHeader = "X-Hermes-Forwarded-By"

// PeerFunc finds where the replica named replica serves its API (a base
// URL such as http://10.0.0.5:8642); an error when it is not a live
// replica.
type PeerFunc func(ctx context.Context, replica string) (string, error)

// runID is a new run's id, naming this replica when it has a name.
func (s *Server) runID() string {
	if s.opt.Replica == "" {
		return "run_" + randomID()
	}
	return "run_" + s.opt.Replica + "_" + randomID()
}

// forwarding wraps a handler of /v1/runs/{id}...: a run this replica does
// not know, whose id names another replica, is that replica's to answer.
func (s *Server) forwarding(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.forwardRun(w, r) {
			h(w, r)
		}
	}
}

// forwardRun passes r to the replica holding the run it names, and
// reports whether it did (it then answered w).
func (s *Server) forwardRun(w http.ResponseWriter, r *http.Request) bool {
	id := r.PathValue("id")
	holder, _, ok := strings.Cut(strings.TrimPrefix(id, "run_"), "_")
	if s.opt.Peer == nil || s.opt.Replica == "" || !ok || holder == s.opt.Replica || !validReplica(holder) || r.Header.Get(forwardedHeader) != "" {
		return false
	}
	s.runs.mu.Lock()
	_, known := s.runs.byID[id]
	s.runs.mu.Unlock()
	if known {
		return false
	}
	base, err := s.opt.Peer(r.Context(), holder)
	if err != nil {
		s.opt.Logger.Info("api: the replica a run names is not serving", slog.String("run", id), slog.String("error", err.Error()))
		return false
	}
	target, err := url.Parse(base)
	if err != nil || target.Host == "" {
		s.opt.Logger.Warn("api: a replica's API address is not a URL", slog.String("run", id), slog.String("url", base))
		return false
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Set(forwardedHeader, s.opt.Replica)
		},
		// Events are passed on as they come, not buffered.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			s.opt.Logger.Warn("api: passing a run's request to its replica", slog.String("run", id), slog.String("error", err.Error()))
			writeError(w, http.StatusBadGateway, "api_error", "id", fmt.Sprintf("run %q is held by another replica, which did not answer; try again", id))
		},
	}
	proxy.ServeHTTP(w, r)
	return true
}

// validReplica reports whether name can be a replica's name in a run id:
// a few lowercase hex digits, as replica.Tag makes.
func validReplica(name string) bool {
	if name == "" || len(name) > 16 {
		return false
	}
	for _, c := range name {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
