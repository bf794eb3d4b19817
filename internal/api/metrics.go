package api

import "net/http"

// ownerMetrics serves GET /metrics to the owner's keys alone: the
// metrics count every user's tokens and cost, which a user of one tenant
// must not read about another.
func ownerMetrics(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !CallerFrom(r.Context()).Owner() {
			writeError(w, http.StatusForbidden, "permission_error", "", "/metrics shows every user's usage: it takes the owner's key (api.keys or HERMES_API_KEY), not a user's")
			return
		}
		h.ServeHTTP(w, r)
	}
}
