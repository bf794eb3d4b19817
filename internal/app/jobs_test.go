package app

import (
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/cron"
)

// Every field of a schedule reaches its job: a field left behind would
// make a job of config.yaml run otherwise than written (a team's job as
// one turn of hermes's own).
func TestConfigJobsCopiesEveryField(t *testing.T) {
	c := config.Config{Schedules: map[string]config.Schedule{"weekly": {
		Cron: "@weekly", Timezone: "Asia/Shanghai", SessionType: "continue", Prompt: "report",
		Skills: []string{"charts"}, Toolsets: []string{"web"}, Model: "gpt-4o", Agent: "analyst", Team: "research",
		Deliver: []string{"local"}, Script: "uptime", NoAgent: true, CatchUp: "all", Memory: "extract",
	}}}
	jobs := ConfigJobs(c)
	if len(jobs) != 1 || jobs[0].Name != "weekly" || jobs[0].Source != cron.SourceConfig || !jobs[0].Enabled {
		t.Fatalf("jobs = %+v", jobs)
	}
	spec := reflect.ValueOf(jobs[0].Spec)
	for i := range spec.NumField() {
		if spec.Field(i).IsZero() {
			t.Errorf("the job's %s was not copied from the schedule", spec.Type().Field(i).Name)
		}
	}
	if j := jobs[0]; j.Team != "research" || j.Agent != "analyst" || j.Prompt != "report" {
		t.Errorf("job = %+v", j.Spec)
	}
}
