package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Team is one entry of teams: a coordinator agent and the role agents it
// dispatches to through the durable task queue (seed 003 §5.1). Every
// number left zero takes its default (see WithDefaults).
type Team struct {
	// Description says in one line what the team is for.
	Description string `yaml:"description"`
	// Coordinator is the agent (agents:) that plans the run and posts
	// its tasks; empty means hermes's own identity.
	Coordinator string `yaml:"coordinator"`
	// Roles are the agents (agents:) tasks are posted to: at least one,
	// each once.
	Roles []string `yaml:"roles"`
	// Workers is how many tasks of each role run at once (1 to 16).
	Workers int `yaml:"workers"`
	// Lease is how long a claim on a task holds without renewal, so the
	// task of a worker that died is claimed again (1s to 1h).
	Lease time.Duration `yaml:"lease"`
	// MaxAttempts is how many times a task is tried before it fails
	// (1 to 20).
	MaxAttempts int `yaml:"max_attempts"`
	// MaxTurns is the coordinator's iteration budget (up to 1000); zero
	// means agent.max_turns.
	MaxTurns int `yaml:"max_turns"`
	// Timeout bounds one whole run (1m to 48h).
	Timeout time.Duration `yaml:"timeout"`
	// Goal is the run's goal when it is given none, as for a job without
	// a prompt.
	Goal string `yaml:"goal"`
	// Deliver is where hermes team run sends the answer, in the syntax of
	// a job's deliver: (a target or an ordered fallback chain); it is
	// parsed, as a job's is, by the delivery that uses it.
	Deliver []string `yaml:"deliver"`
}

// The defaults of a team's zero values, and the ranges accepted.
const (
	DefaultTeamWorkers     = 1
	DefaultTeamLease       = 30 * time.Second
	DefaultTeamMaxAttempts = 3
	DefaultTeamTimeout     = 2 * time.Hour

	MaxTeamWorkers  = 16
	MaxTeamAttempts = 20
	MaxTeamTurns    = 1000
	MinTeamLease    = time.Second
	MaxTeamLease    = time.Hour
	MinTeamTimeout  = time.Minute
	MaxTeamTimeout  = 48 * time.Hour
)

// TeamNames returns the configured teams' names, sorted.
func (c *Config) TeamNames() []string { return slices.Sorted(maps.Keys(c.Teams)) }

// WithDefaults returns t with its zero numbers replaced by the defaults:
// one worker per role, a 30s lease, three attempts, a 2h timeout.
// MaxTurns stays zero, which the runner reads as agent.max_turns.
func (t Team) WithDefaults() Team {
	if t.Workers == 0 {
		t.Workers = DefaultTeamWorkers
	}
	if t.Lease == 0 {
		t.Lease = DefaultTeamLease
	}
	if t.MaxAttempts == 0 {
		t.MaxAttempts = DefaultTeamMaxAttempts
	}
	if t.Timeout == 0 {
		t.Timeout = DefaultTeamTimeout
	}
	return t
}

// validateTeams checks each team of teams: and each schedule that runs
// one.
func validateTeams(c *Config, where func(key string) string) []error {
	var errs []error
	for _, name := range c.TeamNames() {
		if !agentName.Get().MatchString(name) {
			errs = append(errs, badValue(where("teams"), "teams", name,
				"is not accepted as a team name; use up to 64 lowercase letters, digits, \"-\" and \"_\", starting with a letter or digit"))
			continue
		}
		errs = append(errs, validateTeam(c, c.Teams[name], "teams."+name, where)...)
	}
	for _, job := range slices.Sorted(maps.Keys(c.Schedules)) {
		errs = append(errs, teamJobErrors(c, c.Schedules[job], "schedules."+job, where)...)
	}
	return errs
}

// validateTeam checks one team: its agents are configured, its roles are
// there and distinct, its numbers in range. prefix is the team's key
// ("teams.research"), or empty in a team file.
func validateTeam(c *Config, t Team, prefix string, where func(key string) string) []error {
	var errs []error
	bad := func(field, value, prob string) {
		key := subKey(prefix, field)
		errs = append(errs, badValue(where(key), key, value, prob))
	}
	if t.Coordinator != "" {
		if _, ok := c.Agents[t.Coordinator]; !ok {
			bad("coordinator", t.Coordinator, "is not accepted; name an agent of agents:, or leave it out for hermes's own identity; "+agentList(c))
		}
	}
	if len(t.Roles) == 0 {
		bad("roles", "", "is not accepted; a team needs at least one role: list agents of agents: it posts tasks to, like roles: [collector, analyst]")
	}
	seen := map[string]int{}
	for i, r := range t.Roles {
		field := fmt.Sprintf("roles[%d]", i)
		if first, dup := seen[r]; dup {
			bad(field, r, fmt.Sprintf("is not accepted; it is roles[%d] already: list each role once and raise workers for more of it at once", first))
			continue
		}
		seen[r] = i
		if _, ok := c.Agents[r]; !ok {
			bad(field, r, "is not accepted; a role is an agent of agents:; "+agentList(c))
		}
	}
	inRange := func(field string, v, lo, hi int, unit string) {
		if v != 0 && (v < lo || v > hi) {
			bad(field, fmt.Sprint(v), fmt.Sprintf("is not accepted; use %d to %d %s, or leave it out for the default", lo, hi, unit))
		}
	}
	inRange("workers", t.Workers, 1, MaxTeamWorkers, "workers per role")
	inRange("max_attempts", t.MaxAttempts, 1, MaxTeamAttempts, "attempts")
	if t.MaxTurns < 0 || t.MaxTurns > MaxTeamTurns {
		bad("max_turns", fmt.Sprint(t.MaxTurns), fmt.Sprintf("is not accepted; use 1 to %d iterations, or 0 for agent.max_turns", MaxTeamTurns))
	}
	durRange := func(field string, v, lo, hi time.Duration) {
		if v != 0 && (v < lo || v > hi) {
			bad(field, v.String(), fmt.Sprintf("is not accepted; use a duration from %s to %s, or leave it out for the default", short(lo), short(hi)))
		}
	}
	durRange("lease", t.Lease, MinTeamLease, MaxTeamLease)
	durRange("timeout", t.Timeout, MinTeamTimeout, MaxTeamTimeout)
	return errs
}

// short writes a whole number of hours, minutes or seconds the way a
// person types it ("1h", not "1h0m0s").
func short(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// subKey joins a field to its parent's key; an empty parent leaves the
// field alone.
func subKey(prefix, field string) string {
	if prefix == "" {
		return field
	}
	return prefix + "." + field
}

// CheckTeamJob checks a job that runs a team (its Team set) against this
// configuration, the way a schedule's are checked when config.yaml loads:
// the team is configured, the job names no agent and does not skip the
// agents, and the run has a goal, the job's prompt or the team's goal.
// Errors name the job's fields (team, agent, no_agent, prompt).
func (c *Config) CheckTeamJob(s Schedule) error {
	return errors.Join(teamJobErrors(c, s, "", func(string) string { return "" })...)
}

// teamJobErrors is CheckTeamJob for the job at prefix ("schedules.NAME").
func teamJobErrors(c *Config, s Schedule, prefix string, where func(key string) string) []error {
	if s.Team == "" {
		return nil
	}
	var errs []error
	bad := func(field, value, prob string) {
		key := subKey(prefix, field)
		errs = append(errs, badValue(where(key), key, value, prob))
	}
	t, ok := c.Teams[s.Team]
	if !ok {
		bad("team", s.Team, "is not accepted; "+teamList(c))
	}
	if s.Agent != "" {
		bad("agent", s.Agent, "is not accepted beside team: a team's agents are its coordinator and roles, set under teams."+s.Team+"; leave agent out")
	}
	if s.NoAgent {
		bad("no_agent", "true", "is not accepted beside team: a team run is its agents' turns; leave team out to deliver a script's output alone")
	}
	if ok && strings.TrimSpace(s.Prompt) == "" && strings.TrimSpace(t.Goal) == "" {
		bad("prompt", s.Prompt, "is not accepted: a job that runs team "+s.Team+" needs a goal; give the job a prompt, or the team a goal under teams."+s.Team+".goal")
	}
	return errs
}

// teamList says which teams there are to choose from.
func teamList(c *Config) string {
	if len(c.Teams) == 0 {
		return "no teams are configured; define it under teams:"
	}
	return "use one of " + strings.Join(c.TeamNames(), ", ")
}
