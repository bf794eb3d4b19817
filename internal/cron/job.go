package cron

import (
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Session types: a fresh conversation per run, or one conversation that
// every run of the job continues.
const (
	SessionNew      = "new"
	SessionContinue = "continue"
)

// Catch-up policies for fires missed while hermes was down or asleep.
const (
	// CatchUpOnce runs once if the newest missed fire is within the grace
	// window, and otherwise records it missed. The default.
	CatchUpOnce = "once"
	// CatchUpSkip records missed fires and waits for the next one.
	CatchUpSkip = "skip"
	// CatchUpAll runs every missed fire, oldest first, up to MaxCatchUp.
	CatchUpAll = "all"
)

// Sources: declared in the config file, or created at run time (by the
// agent's cron tool or the CLI). Sync only ever touches config jobs.
const (
	SourceConfig = "config"
	SourceTool   = "tool"
)

// MaxCatchUp bounds the runs CatchUpAll makes after one outage.
const MaxCatchUp = 24

// Spec is what a job does and when: the part a config file declares.
type Spec struct {
	Schedule    string   `json:"schedule" yaml:"schedule"`
	Timezone    string   `json:"timezone,omitempty" yaml:"timezone,omitempty"`
	SessionType string   `json:"session_type,omitempty" yaml:"session_type,omitempty"`
	Prompt      string   `json:"prompt,omitempty" yaml:"prompt,omitempty"`
	Skills      []string `json:"skills,omitempty" yaml:"skills,omitempty"`
	Toolsets    []string `json:"toolsets,omitempty" yaml:"toolsets,omitempty"`
	Model       string   `json:"model,omitempty" yaml:"model,omitempty"`
	// Agent is the role agent the job's turns run as (config's agents:).
	Agent string `json:"agent,omitempty" yaml:"agent,omitempty"`
	// Team is the team (config's teams:) the job runs instead of one
	// turn; Prompt is the run's goal, and without it the team's goal is.
	Team    string   `json:"team,omitempty" yaml:"team,omitempty"`
	Deliver []string `json:"deliver,omitempty" yaml:"deliver,omitempty"`
	Script  string   `json:"script,omitempty" yaml:"script,omitempty"`
	NoAgent bool     `json:"no_agent,omitempty" yaml:"no_agent,omitempty"`
	CatchUp string   `json:"catch_up,omitempty" yaml:"catch_up,omitempty"`
	// Memory is MemoryExtract to extract each run's lasting facts into
	// long-term memory after it; empty or MemoryOff leaves them out.
	Memory string `json:"memory,omitempty" yaml:"memory,omitempty"`
}

// The values of Spec.Memory.
const (
	MemoryExtract = "extract"
	MemoryOff     = "off"
)

// Job is a stored job: its spec plus the scheduler's bookkeeping.
type Job struct {
	Name string
	Spec
	Enabled bool
	Source  string
	// NextRunAt is the next fire; zero when disabled or a spent one-shot.
	NextRunAt    time.Time
	LastRunAt    time.Time
	RunningSince time.Time
	// SessionID is the conversation a "continue" job carries on.
	SessionID string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// namePattern keeps job names usable as CLI arguments and in file names.
var namePattern = lazy.Regexp{Expr: `^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`}

// normalize fills defaults and checks every field, naming the job, the
// field, the value and what is accepted. It returns the parsed schedule.
func (j *Job) normalize(defaultZone string, now time.Time) (Schedule, error) {
	if !namePattern.Get().MatchString(j.Name) {
		return nil, fmt.Errorf("job %q: name must be 1-64 letters, digits, '-', '_' or '.', starting with a letter or digit", j.Name)
	}
	if j.SessionType == "" {
		j.SessionType = SessionNew
	}
	if j.CatchUp == "" {
		j.CatchUp = CatchUpOnce
	}
	if j.Source == "" {
		j.Source = SourceTool
	}
	if !slices.Contains([]string{SessionNew, SessionContinue}, j.SessionType) {
		return nil, fmt.Errorf("job %q: session_type %q: want %q or %q", j.Name, j.SessionType, SessionNew, SessionContinue)
	}
	if !slices.Contains([]string{CatchUpOnce, CatchUpSkip, CatchUpAll}, j.CatchUp) {
		return nil, fmt.Errorf("job %q: catch_up %q: want %q, %q or %q", j.Name, j.CatchUp, CatchUpOnce, CatchUpSkip, CatchUpAll)
	}
	if !slices.Contains([]string{"", MemoryExtract, MemoryOff}, j.Memory) {
		return nil, fmt.Errorf("job %q: memory %q: want %q or %q", j.Name, j.Memory, MemoryExtract, MemoryOff)
	}
	if !slices.Contains([]string{SourceConfig, SourceTool}, j.Source) {
		return nil, fmt.Errorf("job %q: source %q: want %q or %q", j.Name, j.Source, SourceConfig, SourceTool)
	}
	if j.Team != "" {
		if err := j.checkTeam(); err != nil {
			return nil, err
		}
	} else if j.Prompt == "" && j.Script == "" {
		return nil, fmt.Errorf("job %q: needs a prompt or a script", j.Name)
	}
	if j.NoAgent && j.Script == "" {
		return nil, fmt.Errorf("job %q: no_agent needs a script to run", j.Name)
	}
	if j.Timezone == "" {
		j.Timezone = defaultZone
	}
	loc, err := LoadZone(j.Timezone, "")
	if err != nil {
		return nil, fmt.Errorf("job %q: timezone: %w", j.Name, err)
	}
	s, err := parseIn(j.Schedule, loc, now)
	if err != nil {
		return nil, fmt.Errorf("job %q: %w", j.Name, err)
	}
	// A relative one-shot is stored as the time it resolved to, so
	// reloading the job does not push it back again.
	if at, ok := At(s); ok {
		j.Schedule = at.In(loc).Format(time.RFC3339)
	}
	return s, nil
}

// checkTeam refuses what a job that runs a team cannot also be. Its
// prompt may be empty: the team's goal then takes its place.
func (j *Job) checkTeam() error {
	switch {
	case j.NoAgent:
		return fmt.Errorf("job %q: no_agent is not accepted beside team %q: a team run is its agents' turns; leave team out to deliver a script's output alone", j.Name, j.Team)
	case j.Agent != "":
		return fmt.Errorf("job %q: agent %q is not accepted beside team %q: a team's agents are its coordinator and roles, set under teams:; leave agent out", j.Name, j.Agent, j.Team)
	}
	return nil
}

// schedule parses the stored job's schedule.
func (j *Job) schedule(now time.Time) (Schedule, error) {
	loc, err := LoadZone(j.Timezone, "")
	if err != nil {
		return nil, fmt.Errorf("job %q: timezone: %w", j.Name, err)
	}
	s, err := parseIn(j.Schedule, loc, now)
	if err != nil {
		return nil, fmt.Errorf("job %q: %w", j.Name, err)
	}
	return s, nil
}
