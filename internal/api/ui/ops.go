package ui

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// Bounds of the operations pages.
const (
	runsPerJob    = 5   // runs the jobs page shows per job
	deliveryRuns  = 20  // runs per job the deliveries page reads
	shownFailures = 100 // failures the deliveries page shows
)

// jobRow is a job with its newest runs.
type jobRow struct {
	cron.Job
	Next string
	Runs []cron.Run
}

// jobs lists the cron jobs with their next fires and newest runs, each
// with a run-now button.
func (d *Dashboard) jobs(w http.ResponseWriter, r *http.Request, csrf string) {
	if d.opt.Jobs == nil {
		d.render(w, r, http.StatusOK, "jobs", page{Title: "Cron jobs", CSRF: csrf, Notice: "This hermes has no job store."})
		return
	}
	ctx := r.Context()
	list, err := d.opt.Jobs.List(ctx)
	if err != nil {
		d.fail(w, r, "jobs", csrf, err)
		return
	}
	rows := make([]jobRow, 0, len(list))
	for _, j := range list {
		runs, err := d.opt.Jobs.History(ctx, j.Name, runsPerJob)
		if err != nil {
			d.fail(w, r, "jobs", csrf, err)
			return
		}
		for i := range runs {
			runs[i].Output, runs[i].Error = short(300, d.opt.Redact(runs[i].Output)), short(300, d.opt.Redact(runs[i].Error))
		}
		j.Prompt = d.opt.Redact(j.Prompt)
		rows = append(rows, jobRow{Job: j, Next: nextFire(j), Runs: runs})
	}
	p := page{Title: "Cron jobs", CSRF: csrf, Data: rows}
	if q := r.URL.Query(); q.Get("ran") != "" {
		p.Notice = fmt.Sprintf("Job %s started now as run %s; its row below says running until it ends.", q.Get("ran"), q.Get("run"))
	}
	d.render(w, r, http.StatusOK, "jobs", p)
}

// nextFire says when a job fires next, or why it does not.
func nextFire(j cron.Job) string {
	switch {
	case !j.Enabled:
		return "paused"
	case j.NextRunAt.IsZero():
		return "none (a one-shot that has run)"
	}
	return cron.FireTime(j.NextRunAt, cmp.Or(j.Timezone, "UTC"))
}

// runJob starts a job now, through the same path as hermes cron run.
func (d *Dashboard) runJob(w http.ResponseWriter, r *http.Request, csrf string) {
	name := r.PathValue("name")
	if d.opt.RunJob == nil {
		d.render(w, r, http.StatusNotFound, "jobs", page{Title: "Cron jobs", CSRF: csrf, Error: "This hermes cannot run jobs from the dashboard."})
		return
	}
	id, err := d.opt.RunJob(r.Context(), name)
	if err != nil {
		status := http.StatusConflict
		if errors.Is(err, cron.ErrNotFound) {
			status = http.StatusNotFound
		}
		d.render(w, r, status, "jobs", page{Title: "Cron jobs", CSRF: csrf,
			Error: fmt.Sprintf("job %q did not start: %s", name, d.opt.Redact(err.Error()))})
		return
	}
	d.opt.Logger.Info("dashboard: job run now", "job", name, "run", id)
	http.Redirect(w, r, Prefix+"/jobs?"+url.Values{"ran": {name}, "run": {fmt.Sprint(id)}}.Encode(), http.StatusSeeOther)
}

// delivery is one delivery of a job's run, or one failure of the
// gateway's outbound queue.
type delivery struct {
	Time         time.Time
	What, Target string
	OK           bool
	Error        string
	SessionID    string
}

// deliveriesData is the deliveries page.
type deliveriesData struct {
	Failed, Delivered []delivery
}

// deliveries shows the newest deliveries of the jobs' runs, failures
// first, and the gateway's messages that could not be sent.
func (d *Dashboard) deliveries(w http.ResponseWriter, r *http.Request, csrf string) {
	ctx := r.Context()
	var all []delivery
	if d.opt.Jobs != nil {
		list, err := d.opt.Jobs.List(ctx)
		if err != nil {
			d.fail(w, r, "deliveries", csrf, err)
			return
		}
		for _, j := range list {
			runs, err := d.opt.Jobs.History(ctx, j.Name, deliveryRuns)
			if err != nil {
				d.fail(w, r, "deliveries", csrf, err)
				return
			}
			for _, run := range runs {
				at := cmp.Or(run.EndedAt, run.StartedAt, run.ScheduledFor)
				for _, dl := range run.Deliveries {
					all = append(all, delivery{Time: at, What: "job " + j.Name, Target: notify.Mask(dl.Target), OK: dl.OK,
						Error: short(300, d.opt.Redact(dl.Error)), SessionID: run.SessionID})
				}
			}
		}
	}
	if d.opt.Failures != nil {
		fs, err := d.opt.Failures(ctx, shownFailures)
		if err != nil {
			d.fail(w, r, "deliveries", csrf, err)
			return
		}
		for _, f := range fs {
			text := short(120, d.opt.Redact(f.Text))
			if d.opt.Source != "" {
				// A reply on a chat platform belongs to a conversation the
				// dashboard does not show (Options.Source).
				text = "(its text is shown with api.sessions: all)"
			}
			all = append(all, delivery{Time: f.Time, What: fmt.Sprintf("reply (%d attempts): %s", f.Attempts, text),
				Target: f.Where, Error: short(300, d.opt.Redact(f.Error))})
		}
	}
	slices.SortStableFunc(all, func(a, b delivery) int { return b.Time.Compare(a.Time) })
	var data deliveriesData
	for _, dl := range all {
		if dl.OK {
			data.Delivered = append(data.Delivered, dl)
		} else {
			data.Failed = append(data.Failed, dl)
		}
	}
	data.Failed = data.Failed[:min(len(data.Failed), shownFailures)]
	data.Delivered = data.Delivered[:min(len(data.Delivered), shownFailures)]
	d.render(w, r, http.StatusOK, "deliveries", page{Title: "Deliveries", CSRF: csrf, Data: data})
}

// platformsData is the platforms page.
type platformsData struct {
	Platforms []Platform
	Checked   time.Time
}

// platformsPage shows each gateway platform and whether it connects, as
// hermes gateway status does; the check is kept a while.
func (d *Dashboard) platformsPage(w http.ResponseWriter, r *http.Request, csrf string) {
	if d.opt.Platforms == nil {
		d.render(w, r, http.StatusOK, "platforms", page{Title: "Platforms", CSRF: csrf, Notice: "No gateway platform is configured."})
		return
	}
	ps, at, err := d.platforms.get(func() ([]Platform, error) { return d.opt.Platforms(r.Context()) })
	if err != nil {
		d.fail(w, r, "platforms", csrf, err)
		return
	}
	out := make([]Platform, len(ps))
	for i, p := range ps {
		out[i] = Platform{Name: p.Name, OK: p.OK, Detail: d.opt.Redact(p.Detail)}
	}
	p := page{Title: "Platforms", CSRF: csrf, Data: platformsData{Platforms: out, Checked: at}}
	if len(out) == 0 {
		p.Notice = "No gateway platform is configured: add one under gateway: in config.yaml."
	}
	d.render(w, r, http.StatusOK, "platforms", p)
}
