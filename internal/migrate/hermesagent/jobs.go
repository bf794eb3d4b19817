package hermesagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
)

// JobStore is what the import needs of the job store.
type JobStore interface {
	Get(ctx context.Context, name string) (cron.Job, error)
	Create(ctx context.Context, j cron.Job) (cron.Job, error)
	Pause(ctx context.Context, name string) error
}

// JobReport is what an import of jobs did: the jobs imported, the ones
// there already, and each job or part of one left out, with why.
type JobReport struct {
	Imported, Present int
	Notes             []string
}

// hermesJob is a job of Hermes's cron/jobs.json (cron/jobs.py).
type hermesJob struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Prompt   string   `json:"prompt"`
	Skills   []string `json:"skills"`
	Skill    string   `json:"skill"`
	Model    *string  `json:"model"`
	Provider *string  `json:"provider"`
	Script   *string  `json:"script"`
	NoAgent  bool     `json:"no_agent"`
	Schedule struct {
		Kind    string `json:"kind"`
		Expr    string `json:"expr"`
		Minutes int    `json:"minutes"`
		RunAt   string `json:"run_at"`
	} `json:"schedule"`
	Repeat struct {
		Times *int `json:"times"`
	} `json:"repeat"`
	Enabled  *bool           `json:"enabled"`
	State    string          `json:"state"`
	Deliver  string          `json:"deliver"`
	Origin   *hermesOrigin   `json:"origin"`
	Toolsets []string        `json:"enabled_toolsets"`
	Workdir  *string         `json:"workdir"`
	Context  json.RawMessage `json:"context_from"`
}

// hermesOrigin is the chat a job was created in.
type hermesOrigin struct {
	Platform string `json:"platform"`
	ChatID   string `json:"chat_id"`
}

// readJobs reads jobs.json: {"jobs": [...]} or, from old releases, a bare
// list. A missing file is no jobs.
func readJobs(path string) ([]hermesJob, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Jobs []hermesJob `json:"jobs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		var list []hermesJob
		if err2 := json.Unmarshal(data, &list); err2 != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return list, nil
	}
	return doc.Jobs, nil
}

// ImportJobs imports the jobs of Hermes's cron/jobs.json at path into st,
// each under a name made of its own and its id (jobName): its schedule
// (cron expression, interval or one-shot, in the configured time zone),
// prompt, skills, model, script, toolsets and delivery, paused if it was.
// A job whose name is taken is there already. Delivery hermes cannot
// make (a chat of a platform it delivers to only through the gateway,
// "all") becomes local, and the report says so, as it says what else was
// left out. With dryRun nothing is written.
func ImportJobs(ctx context.Context, st JobStore, path string, now time.Time, dryRun bool) (JobReport, error) {
	var rep JobReport
	hjs, err := readJobs(path)
	if err != nil {
		return rep, err
	}
	for _, h := range hjs {
		j, notes, skip := jobOf(h, now)
		for _, n := range notes {
			rep.Notes = append(rep.Notes, fmt.Sprintf("job %s: %s", j.Name, n))
		}
		if skip {
			continue
		}
		if _, err := st.Get(ctx, j.Name); err == nil {
			rep.Present++
			continue
		}
		if !dryRun {
			if _, err := st.Create(ctx, j); err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("job %s: not imported: %v", j.Name, err))
				continue
			}
			if !j.Enabled {
				if err := st.Pause(ctx, j.Name); err != nil {
					return rep, err
				}
			}
		}
		rep.Imported++
	}
	return rep, nil
}

// jobOf is Hermes's job as hermes's, with what was left out of it, and
// whether it cannot be imported at all.
func jobOf(h hermesJob, now time.Time) (cron.Job, []string, bool) {
	j := cron.Job{Name: jobName(h), Enabled: h.Enabled == nil || *h.Enabled}
	if h.State == "paused" {
		j.Enabled = false
	}
	var notes []string
	switch h.Schedule.Kind {
	case "cron":
		j.Schedule = h.Schedule.Expr
	case "interval":
		j.Schedule = fmt.Sprintf("every %dm", h.Schedule.Minutes)
	case "once":
		at, err := time.Parse(time.RFC3339Nano, h.Schedule.RunAt)
		if err != nil || !at.After(now) {
			return j, []string{"not imported: its one-shot time " + h.Schedule.RunAt + " has passed"}, true
		}
		j.Schedule = at.Format(time.RFC3339)
	default:
		return j, []string{fmt.Sprintf("not imported: schedule kind %q is not one Hermes writes", h.Schedule.Kind)}, true
	}
	if h.State == "completed" {
		return j, []string{"not imported: it has completed"}, true
	}
	j.Prompt, j.NoAgent = h.Prompt, h.NoAgent
	j.Skills = h.Skills
	if len(j.Skills) == 0 && h.Skill != "" {
		j.Skills = []string{h.Skill}
	}
	if h.Model != nil && *h.Model != "" {
		j.Model = *h.Model
		if h.Provider != nil && *h.Provider != "" {
			j.Model = *h.Provider + "/" + *h.Model
		}
	}
	if h.Script != nil && *h.Script != "" {
		j.Script = *h.Script
	}
	for _, t := range h.Toolsets {
		if t == "cronjob" {
			t = "cron"
		}
		j.Toolsets = append(j.Toolsets, t)
	}
	j.Deliver, notes = deliverOf(h, notes)
	if h.Workdir != nil && *h.Workdir != "" {
		notes = append(notes, "workdir "+*h.Workdir+" is not kept: jobs run in the home")
	}
	if len(h.Context) > 0 && string(h.Context) != "null" {
		notes = append(notes, "context_from (other jobs' output as context) is not kept")
	}
	if h.Repeat.Times != nil && h.Schedule.Kind != "once" {
		notes = append(notes, fmt.Sprintf("repeat limit %d is not kept: it repeats until removed", *h.Repeat.Times))
	}
	return j, notes, false
}

// deliverOf maps Hermes's deliver (comma-separated: local, origin, all, a
// platform, platform:chat[:thread]) to hermes's targets: local, and
// telegram chats; the rest become local, noted.
func deliverOf(h hermesJob, notes []string) ([]string, []string) {
	var out []string
	add := func(t string) {
		for _, o := range out {
			if o == t {
				return
			}
		}
		out = append(out, t)
	}
	for _, tok := range strings.Split(h.Deliver, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "origin" && h.Origin != nil {
			tok = h.Origin.Platform + ":" + h.Origin.ChatID
		}
		platform, chat, _ := strings.Cut(tok, ":")
		chat, _, _ = strings.Cut(chat, ":") // a thread is not kept
		switch {
		case tok == "" || tok == "local":
			add("local")
		case platform == "telegram" && chat != "":
			add("telegram:" + chat)
		default:
			add("local")
			notes = append(notes, fmt.Sprintf("delivery %q is kept in the local output instead", tok))
		}
	}
	return out, notes
}

// jobName is the name a Hermes job gets here: its own name made a slug
// (letters, digits and '-'), and six characters of its id, so that two
// jobs of one name stay two.
func jobName(h hermesJob) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(h.Name) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	slug := strings.Trim(b.String(), "-")
	if slug == "" {
		slug = "job"
	}
	id := h.ID
	if len(id) > 6 {
		id = id[:6]
	}
	return slug + "-" + id
}
