package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// jobAPI serves /v1/jobs: the hermes cron commands over HTTP, through the
// same job store and its validation, and the same run-now as hermes cron
// run. A job made here runs later with nobody watching, so what the API
// may set is narrower than what the operator may at the terminal (see
// jobRequest).
type jobAPI struct {
	s *Server
	a *Admin
}

func (s *Server) routeJobs(a *Admin) {
	h := &jobAPI{s: s, a: a}
	s.mux.HandleFunc("GET /v1/jobs", ownerOnly(h.list))
	s.mux.HandleFunc("POST /v1/jobs", ownerOnly(h.create))
	s.mux.HandleFunc("GET /v1/jobs/{name}", ownerOnly(h.get))
	s.mux.HandleFunc("PATCH /v1/jobs/{name}", ownerOnly(h.update))
	s.mux.HandleFunc("DELETE /v1/jobs/{name}", ownerOnly(h.remove))
	s.mux.HandleFunc("POST /v1/jobs/{name}/pause", ownerOnly(h.pause))
	s.mux.HandleFunc("POST /v1/jobs/{name}/resume", ownerOnly(h.resume))
	s.mux.HandleFunc("POST /v1/jobs/{name}/run", ownerOnly(h.run))
	s.mux.HandleFunc("GET /v1/jobs/{name}/runs", ownerOnly(h.history))
}

// ownerOnly lets the owner's keys through to h and refuses users': jobs
// run with the owner's tools and memory, and belong to no user.
func ownerOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !CallerFrom(r.Context()).Owner() {
			writeError(w, http.StatusForbidden, "permission_error", "", "scheduled jobs are the owner's: a user's key cannot list or change them; ask the owner")
			return
		}
		h(w, r)
	}
}

// jobJSON is a job as the API shows it.
type jobJSON struct {
	Object string `json:"object"`
	Name   string `json:"name"`
	cron.Spec
	Enabled bool `json:"enabled"`
	// Source is config (declared in config.yaml, changed there) or tool
	// (created at run time).
	Source       string    `json:"source"`
	NextRunAt    time.Time `json:"next_run_at,omitzero"`
	LastRunAt    time.Time `json:"last_run_at,omitzero"`
	RunningSince time.Time `json:"running_since,omitzero"`
	SessionID    string    `json:"session_id,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

func (h *jobAPI) job(j cron.Job) jobJSON {
	spec := j.Spec
	spec.Prompt = h.a.Redact(spec.Prompt)
	spec.Script = h.a.Redact(spec.Script)
	// A target can carry a key (a WeCom robot's, a webhook's path): it
	// is shown masked, as hermes cron list shows it.
	deliver := make([]string, len(spec.Deliver))
	for i, d := range spec.Deliver {
		deliver[i] = notify.Mask(d)
	}
	spec.Deliver = deliver
	return jobJSON{Object: "job", Name: j.Name, Spec: spec, Enabled: j.Enabled, Source: j.Source,
		NextRunAt: j.NextRunAt, LastRunAt: j.LastRunAt, RunningSince: j.RunningSince, SessionID: j.SessionID,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
}

// runJSON is one run of a job's history.
type runJSON struct {
	Object       string          `json:"object"`
	ID           int64           `json:"id"`
	Job          string          `json:"job"`
	ScheduledFor time.Time       `json:"scheduled_for"`
	StartedAt    time.Time       `json:"started_at,omitzero"`
	EndedAt      time.Time       `json:"ended_at,omitzero"`
	Status       string          `json:"status"`
	SessionID    string          `json:"session_id,omitempty"`
	Output       string          `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	Deliveries   []cron.Delivery `json:"deliveries,omitempty"`
}

func (h *jobAPI) list(w http.ResponseWriter, r *http.Request) {
	jobs, err := h.a.Jobs.List(r.Context())
	if err != nil {
		h.fail(w, err)
		return
	}
	out := make([]jobJSON, len(jobs))
	for i, j := range jobs {
		out[i] = h.job(j)
	}
	writeList(w, out)
}

// find returns the job of the path's name, or writes why not.
func (h *jobAPI) find(w http.ResponseWriter, r *http.Request) (cron.Job, bool) {
	j, err := h.a.Jobs.Get(r.Context(), r.PathValue("name"))
	if err != nil {
		h.fail(w, err)
		return cron.Job{}, false
	}
	return j, true
}

func (h *jobAPI) get(w http.ResponseWriter, r *http.Request) {
	if j, ok := h.find(w, r); ok {
		writeJSON(w, http.StatusOK, h.job(j))
	}
}

func (h *jobAPI) create(w http.ResponseWriter, r *http.Request) {
	req, bad := h.decode(r, true)
	if bad != nil {
		writeBad(w, bad)
		return
	}
	if _, err := h.a.Jobs.Get(r.Context(), req.name); err == nil {
		writeError(w, http.StatusConflict, "invalid_request_error", "name", fmt.Sprintf("name: a job %q exists already; choose another name, or PATCH /v1/jobs/%s to change it", req.name, req.name))
		return
	}
	spec, err := req.apply(cron.Spec{})
	if err != nil {
		h.invalid(w, err)
		return
	}
	j, err := h.a.Jobs.Create(r.Context(), cron.Job{Name: req.name, Source: cron.SourceTool, Spec: spec})
	if err != nil {
		h.invalid(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, h.job(j))
}

func (h *jobAPI) update(w http.ResponseWriter, r *http.Request) {
	req, bad := h.decode(r, false)
	if bad != nil {
		writeBad(w, bad)
		return
	}
	j, ok := h.find(w, r)
	if !ok || !h.runtimeJob(w, j, "changed") {
		return
	}
	if j.Script != "" || j.NoAgent || len(j.Toolsets) > 0 || j.Agent != "" || j.Team != "" {
		// Its turn, or its script, has what a job made here may not:
		// a new prompt through a key would run with it, unattended (a
		// role agent brings its own toolsets and memory; a team's prompt
		// is the goal of many such agents' turns).
		writeError(w, http.StatusForbidden, "permission_error", "name", fmt.Sprintf("job %q has a script, no_agent, toolsets, a role agent or a team of its own, set on the machine; it is changed there, with hermes cron edit (pause, resume, run and delete work here)", j.Name))
		return
	}
	spec, err := req.apply(j.Spec)
	if err != nil {
		h.invalid(w, err)
		return
	}
	j, err = h.a.Jobs.Update(r.Context(), j.Name, spec)
	if err != nil {
		h.invalid(w, err)
		return
	}
	writeJSON(w, http.StatusOK, h.job(j))
}

// runtimeJob writes 409 and reports false for a job of config.yaml,
// which is changed and removed there.
func (h *jobAPI) runtimeJob(w http.ResponseWriter, j cron.Job, what string) bool {
	if j.Source != cron.SourceConfig {
		return true
	}
	writeError(w, http.StatusConflict, "invalid_request_error", "name", fmt.Sprintf("job %q is declared in config.yaml and can only be %s there; pause and resume work on it here", j.Name, what))
	return false
}

func (h *jobAPI) remove(w http.ResponseWriter, r *http.Request) {
	j, ok := h.find(w, r)
	if !ok || !h.runtimeJob(w, j, "removed") {
		return
	}
	if err := h.a.Jobs.Remove(r.Context(), j.Name); err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": j.Name, "object": "job.deleted", "deleted": true})
}

func (h *jobAPI) pause(w http.ResponseWriter, r *http.Request) {
	h.setEnabled(w, r, h.a.Jobs.Pause)
}

func (h *jobAPI) resume(w http.ResponseWriter, r *http.Request) {
	h.setEnabled(w, r, h.a.Jobs.Resume)
}

func (h *jobAPI) setEnabled(w http.ResponseWriter, r *http.Request, do func(context.Context, string) error) {
	name := r.PathValue("name")
	if err := do(r.Context(), name); err != nil {
		h.invalid(w, err)
		return
	}
	if j, ok := h.find(w, r); ok {
		writeJSON(w, http.StatusOK, h.job(j))
	}
}

// run starts the job now, as hermes cron run does, and answers 202 with
// its run, in the history as running until it ends.
func (h *jobAPI) run(w http.ResponseWriter, r *http.Request) {
	j, ok := h.find(w, r)
	if !ok {
		return
	}
	if !j.RunningSince.IsZero() {
		// One run at a time: a key cannot pile runs (and model calls) up.
		writeError(w, http.StatusConflict, "invalid_request_error", "name", fmt.Sprintf("job %q is running since %s; GET /v1/jobs/%s/runs shows when it has ended", j.Name, j.RunningSince.Format(time.RFC3339), j.Name))
		return
	}
	id, err := h.a.RunJob(r.Context(), j.Name)
	if err != nil {
		h.fail(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, runJSON{Object: "job.run", ID: id, Job: j.Name, Status: cron.StatusRunning})
}

// history answers the job's newest runs, newest first.
func (h *jobAPI) history(w http.ResponseWriter, r *http.Request) {
	limit, bad := queryInt(r, "limit", 20, 1, 1000)
	if bad != nil {
		writeBad(w, bad)
		return
	}
	j, ok := h.find(w, r)
	if !ok {
		return
	}
	runs, err := h.a.Jobs.History(r.Context(), j.Name, limit)
	if err != nil {
		h.fail(w, err)
		return
	}
	out := make([]runJSON, len(runs))
	for i, run := range runs {
		out[i] = runJSON{Object: "job.run", ID: run.ID, Job: run.Job, ScheduledFor: run.ScheduledFor, StartedAt: run.StartedAt,
			EndedAt: run.EndedAt, Status: run.Status, SessionID: run.SessionID, Output: h.a.Redact(run.Output),
			Error: h.a.Redact(run.Error), Deliveries: run.Deliveries}
	}
	writeList(w, out)
}

// fail answers an error of the store: a job that does not exist is 404
// with a hint.
func (h *jobAPI) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, cron.ErrNotFound) {
		err = &Error{Status: http.StatusNotFound, Param: "name", Message: fmt.Sprintf("%v; GET /v1/jobs lists the jobs there are", err)}
	}
	writeFailure(w, err, h.a.Redact, cron.ErrNotFound)
}

// invalid answers an error of the store's validation (a schedule, zone or
// field it does not accept, a one-shot already past) as 400: its message
// names the job, the field and what is accepted.
func (h *jobAPI) invalid(w http.ResponseWriter, err error) {
	if errors.Is(err, cron.ErrNotFound) {
		h.fail(w, err)
		return
	}
	writeError(w, http.StatusBadRequest, "invalid_request_error", "", h.a.Redact(err.Error()))
}
