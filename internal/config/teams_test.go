package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// teamAgents are the agents the teams of these tests are made of.
const teamAgents = "agents:\n  lead: {}\n  collector: {}\n  analyst: {}\n  writer: {}\n"

// TestTeamsLoad reads a team with every field, and one with only its
// roles, whose defaults WithDefaults fills.
func TestTeamsLoad(t *testing.T) {
	l, _, err := loadYAML(t, teamAgents+`teams:
  research:
    description: weekly competitor report
    coordinator: lead
    roles: [collector, analyst, writer]
    workers: 4
    lease: 2m
    max_attempts: 5
    max_turns: 40
    timeout: 90m
    goal: Report on the competitors' week
    deliver: wecom:abc123
  small:
    roles: analyst
schedules:
  weekly:
    cron: "@weekly"
    team: research
  asked:
    cron: "@daily"
    team: small
    prompt: Sum up yesterday
`)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if got := c.TeamNames(); !slices.Equal(got, []string{"research", "small"}) {
		t.Fatalf("names = %v", got)
	}
	r := c.Teams["research"]
	want := Team{Description: "weekly competitor report", Coordinator: "lead", Roles: []string{"collector", "analyst", "writer"},
		Workers: 4, Lease: 2 * time.Minute, MaxAttempts: 5, MaxTurns: 40, Timeout: 90 * time.Minute,
		Goal: "Report on the competitors' week", Deliver: []string{"wecom:abc123"}}
	if !teamEqual(r, want) || !teamEqual(r.WithDefaults(), want) {
		t.Errorf("research = %+v", r)
	}
	s := c.Teams["small"].WithDefaults()
	want = Team{Roles: []string{"analyst"}, Workers: DefaultTeamWorkers, Lease: 30 * time.Second, MaxAttempts: 3, Timeout: 2 * time.Hour}
	if !teamEqual(s, want) {
		t.Errorf("small with defaults = %+v, want %+v", s, want)
	}
	if c.Schedules["weekly"].Team != "research" || c.Schedules["asked"].Team != "small" {
		t.Errorf("schedules = %+v", c.Schedules)
	}
}

func teamEqual(a, b Team) bool {
	return slices.Equal(a.Roles, b.Roles) && slices.Equal(a.Deliver, b.Deliver) &&
		a.Description == b.Description && a.Coordinator == b.Coordinator && a.Workers == b.Workers &&
		a.Lease == b.Lease && a.MaxAttempts == b.MaxAttempts && a.MaxTurns == b.MaxTurns &&
		a.Timeout == b.Timeout && a.Goal == b.Goal
}

// TestTeamsRejected covers what a team, and a job that runs one, cannot
// be; each error names the key, the value and what is accepted.
func TestTeamsRejected(t *testing.T) {
	team := func(body string) string { return teamAgents + "teams:\n  t:\n" + body }
	job := func(body string) string {
		return team("    roles: [analyst]\n") + "schedules:\n  j:\n    cron: \"@daily\"\n" + body
	}
	for _, tc := range []struct{ yaml, want string }{
		{teamAgents + "teams:\n  Big Team:\n    roles: [analyst]\n", `teams: "Big Team" is not accepted as a team name; use up to 64 lowercase letters`},
		{teamAgents + "teams:\n  ../up:\n    roles: [analyst]\n", `teams: "../up" is not accepted as a team name`},
		{team("    description: nobody\n"), `teams.t.roles: "" is not accepted; a team needs at least one role`},
		{team("    roles: []\n"), `teams.t.roles: "" is not accepted; a team needs at least one role`},
		{team("    roles: [analyst, ghost]\n"), `teams.t.roles[1]: "ghost" is not accepted; a role is an agent of agents:; use one of analyst, collector, lead, writer`},
		{"teams:\n  t:\n    roles: [analyst]\n", `teams.t.roles[0]: "analyst" is not accepted; a role is an agent of agents:; no agents are configured; define it under agents:`},
		{team("    roles: [analyst, writer, analyst]\n"), `teams.t.roles[2]: "analyst" is not accepted; it is roles[0] already`},
		{team("    roles: [analyst]\n    coordinator: boss\n"), `teams.t.coordinator: "boss" is not accepted; name an agent of agents:, or leave it out for hermes's own identity; use one of analyst`},
		{team("    roles: [analyst]\n    workers: 17\n"), `teams.t.workers: "17" is not accepted; use 1 to 16 workers per role`},
		{team("    roles: [analyst]\n    workers: -1\n"), `teams.t.workers: "-1" is not accepted`},
		{team("    roles: [analyst]\n    max_attempts: 21\n"), `teams.t.max_attempts: "21" is not accepted; use 1 to 20 attempts`},
		{team("    roles: [analyst]\n    max_turns: 1001\n"), `teams.t.max_turns: "1001" is not accepted; use 1 to 1000 iterations, or 0 for agent.max_turns`},
		{team("    roles: [analyst]\n    lease: 500ms\n"), `teams.t.lease: "500ms" is not accepted; use a duration from 1s to 1h`},
		{team("    roles: [analyst]\n    lease: 2h\n"), `teams.t.lease: "2h0m0s" is not accepted; use a duration from 1s to 1h`},
		{team("    roles: [analyst]\n    timeout: 30s\n"), `teams.t.timeout: "30s" is not accepted; use a duration from 1m to 48h`},
		{team("    roles: [analyst]\n    timeout: 49h\n"), `teams.t.timeout: "49h0m0s" is not accepted; use a duration from 1m to 48h`},
		{job("    prompt: x\n    team: other\n"), `schedules.j.team: "other" is not accepted; use one of t`},
		{"schedules:\n  j:\n    cron: \"@daily\"\n    prompt: x\n    team: t\n", `schedules.j.team: "t" is not accepted; no teams are configured; define it under teams:`},
		{job("    prompt: x\n    team: t\n    agent: analyst\n"), `schedules.j.agent: "analyst" is not accepted beside team: a team's agents are its coordinator and roles`},
		{job("    script: uptime\n    no_agent: true\n    team: t\n"), `schedules.j.no_agent: "true" is not accepted beside team`},
		{job("    team: t\n"), `schedules.j.prompt: "" is not accepted: a job that runs team t needs a goal; give the job a prompt, or the team a goal under teams.t.goal`},
		{job("    team: t\n    prompt: \"  \"\n"), `schedules.j.prompt: "  " is not accepted: a job that runs team t needs a goal`},
	} {
		_, _, err := loadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\nerror %v\nwant  %q", tc.yaml, err, tc.want)
		}
	}
}

// TestCheckTeamJob is the check of a job made at the terminal that runs
// a team: the same rules as a schedule's, with the job's fields named.
func TestCheckTeamJob(t *testing.T) {
	l, _, err := loadYAML(t, teamAgents+"teams:\n  t:\n    roles: [analyst]\n  g:\n    roles: [writer]\n    goal: write\n")
	if err != nil {
		t.Fatal(err)
	}
	c := &l.Config
	for _, tc := range []struct {
		s    Schedule
		want string
	}{
		{Schedule{Prompt: "x"}, ""},
		{Schedule{Team: "t", Prompt: "x"}, ""},
		{Schedule{Team: "g"}, ""},
		{Schedule{Team: "nope", Prompt: "x"}, `team: "nope" is not accepted; use one of g, t`},
		{Schedule{Team: "t"}, `prompt: "" is not accepted: a job that runs team t needs a goal`},
		{Schedule{Team: "t", Prompt: "x", Agent: "analyst"}, `agent: "analyst" is not accepted beside team`},
		{Schedule{Team: "t", Prompt: "x", NoAgent: true}, `no_agent: "true" is not accepted beside team`},
	} {
		err := c.CheckTeamJob(tc.s)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
}

// TestSetTeamKeys: hermes config set reaches a team's keys as it reaches
// an agent's, and refuses a number out of range leaving the file as it
// was.
func TestSetTeamKeys(t *testing.T) {
	before := teamAgents + "teams:\n  research:\n    roles: [analyst]\n"
	dir := home(t, map[string]string{"config.yaml": before})
	if _, err := Set(dir, "teams.research.workers", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := Set(dir, "teams.research.lease", "1m"); err != nil {
		t.Fatal(err)
	}
	l := mustLoad(t, map[string]string{"config.yaml": readFile(t, filepath.Join(dir, "config.yaml"))}, nil, nil)
	if r := l.Config.Teams["research"]; r.Workers != 2 || r.Lease != time.Minute {
		t.Errorf("research = %+v", r)
	}
	_, err := Set(dir, "teams.research.workers", "99")
	if err == nil || err.Error() != `teams.research.workers: "99" is not accepted; use 1 to 16 workers per role, or leave it out for the default` {
		t.Errorf("workers 99: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); !strings.Contains(got, "workers: 2") {
		t.Errorf("a refused value changed the file:\n%s", got)
	}
}

// writeTeamFile writes a team file named file into a fresh directory.
func writeTeamFile(t *testing.T, file, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), file)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadTeamFile reads a team from a file of its own, named by name:
// or by the file, and checks it as config.yaml's teams are checked.
func TestLoadTeamFile(t *testing.T) {
	l, _, err := loadYAML(t, teamAgents)
	if err != nil {
		t.Fatal(err)
	}
	c := &l.Config
	p := writeTeamFile(t, "weekly.yaml", "name: research\ncoordinator: lead\nroles: [collector, analyst, writer]\nworkers: 2\nlease: 45s\ngoal: report\ndeliver: local\n")
	name, tm, err := LoadTeamFile(p, c)
	want := Team{Coordinator: "lead", Roles: []string{"collector", "analyst", "writer"}, Workers: 2, Lease: 45 * time.Second, Goal: "report", Deliver: []string{"local"}}
	if err != nil || name != "research" || !teamEqual(tm, want) {
		t.Fatalf("LoadTeamFile = %q, %+v, %v", name, tm, err)
	}
	p = writeTeamFile(t, "analysts.yml", "roles: [analyst]\n")
	if name, _, err := LoadTeamFile(p, c); err != nil || name != "analysts" {
		t.Errorf("a file without name: = %q, %v; want its base name", name, err)
	}
	for _, tc := range []struct{ file, body, want string }{
		{"t.yaml", "roles: [analyst]\nworker: 2\n", `t.yaml:2: unknown key "worker" (did you mean "workers"?)`},
		{"t.yaml", "roles: [analyst]\nprompt: x\n", `t.yaml:2: unknown key "prompt"`},
		{"t.yaml", "roles: [analyst, ghost]\n", `t.yaml:1: roles[1]: "ghost" is not accepted; a role is an agent of agents:; use one of analyst, collector, lead, writer`},
		{"t.yaml", "roles: [analyst]\ncoordinator: boss\n", `t.yaml:2: coordinator: "boss" is not accepted`},
		{"t.yaml", "roles: [analyst]\nroles: [writer]\n", `t.yaml:2: key "roles" is repeated`},
		{"t.yaml", "description: x\n", `t.yaml: roles: "" is not accepted; a team needs at least one role`},
		{"t.yaml", "roles: [analyst]\nworkers: 0x40\n", `t.yaml:2: workers: "0x40"`},
		{"t.yaml", "roles: [analyst]\ntimeout: 100h\n", `t.yaml:2: timeout: "100h0m0s" is not accepted; use a duration from 1m to 48h`},
		{"t.yaml", "name: Bad Name\nroles: [analyst]\n", `t.yaml:1: name: "Bad Name" is not accepted as a team name`},
		{"My Team.yaml", "roles: [analyst]\n", `My Team.yaml: name: "My Team" is not accepted as a team name`},
		{"t.yaml", "name: [a]\nroles: [analyst]\n", `t.yaml:1: name: a list is not accepted`},
		{"t.yaml", "- roles\n", `t.yaml:1: a list is not accepted; use a mapping of keys`},
		{"t.yaml", "roles: [analyst\n", `t.yaml:2: invalid YAML`},
		{"t.yaml", "\n", `t.yaml: is empty`},
	} {
		p := writeTeamFile(t, tc.file, tc.body)
		_, _, err := LoadTeamFile(p, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s %q:\nerror %v\nwant  %q, naming the file", tc.file, tc.body, err, tc.want)
		}
	}
	if _, _, err := LoadTeamFile(filepath.Join(t.TempDir(), "none.yaml"), c); err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("a missing file: %v", err)
	}
}
