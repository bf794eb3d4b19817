package cron

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// A job that runs a team needs no prompt (the team's goal can be the
// run's) and keeps its team through the store; it cannot also name a
// role agent or skip the agents, and a job without a team still needs a
// prompt or a script.
func TestTeamJobs(t *testing.T) { dbtest.EachTarget(t, testTeamJobs) }

func testTeamJobs(t *testing.T, x dbtest.Target) {
	ctx := context.Background()
	st := openStore(t, x, clock.NewFake(t0))
	for _, j := range []Job{
		{Name: "weekly", Spec: Spec{Schedule: "@weekly", Team: "research"}},
		{Name: "asked", Spec: Spec{Schedule: "@daily", Team: "research", Prompt: "what changed yesterday"}},
	} {
		if _, err := st.Create(ctx, j); err != nil {
			t.Fatalf("%s: %v", j.Name, err)
		}
		if got, err := st.Get(ctx, j.Name); err != nil || got.Team != "research" || got.Prompt != j.Prompt {
			t.Errorf("stored %s = %+v, %v", j.Name, got.Spec, err)
		}
	}
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Schedule: "@daily", Team: "research", Script: "uptime", NoAgent: true}, `job "bad": no_agent is not accepted beside team "research"`},
		{Spec{Schedule: "@daily", Team: "research", Prompt: "p", Agent: "analyst"}, `job "bad": agent "analyst" is not accepted beside team "research"`},
		{Spec{Schedule: "@daily"}, `job "bad": needs a prompt or a script`},
	} {
		if _, err := st.Create(ctx, Job{Name: "bad", Spec: tc.spec}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.spec, err, tc.want)
		}
	}
	spec := Spec{Schedule: "@daily", Prompt: "p", Agent: "analyst"}
	if _, err := st.Create(ctx, Job{Name: "agent", Spec: spec}); err != nil {
		t.Fatal(err)
	}
	spec.Team = "research"
	if _, err := st.Update(ctx, "agent", spec); err == nil || !strings.Contains(err.Error(), "not accepted beside team") {
		t.Errorf("giving an agent's job a team: %v", err)
	}
	if _, err := st.Sync(ctx, []Job{{Name: "cfg", Source: SourceConfig, Enabled: true, Spec: Spec{Schedule: "@daily", Team: "research"}}}); err != nil {
		t.Errorf("a config job that runs a team: %v", err)
	}
	if got, err := st.Get(ctx, "cfg"); err != nil || got.Team != "research" {
		t.Errorf("synced = %+v, %v", got.Spec, err)
	}
}
