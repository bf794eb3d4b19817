package cron

import (
	"reflect"
	"strings"
	"testing"
)

// Patch takes exactly the fields named, every one of them, and refuses a
// name that is no field.
func TestSpecPatch(t *testing.T) {
	old := Spec{Schedule: "@daily", Prompt: "old", Deliver: []string{"local"}, Script: "echo hi"}
	from := Spec{Schedule: "every 2h", Timezone: "Asia/Tokyo", SessionType: SessionContinue, Prompt: "new", Skills: []string{"s"},
		Toolsets: []string{"web"}, Model: "m", Deliver: []string{"email:a@b.c"}, Script: "echo new", NoAgent: true, CatchUp: CatchUpAll, Team: "research"}
	got, err := old.Patch(from, []string{"prompt", "schedule"})
	want := old
	want.Prompt, want.Schedule = "new", "every 2h"
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("patch of two fields = %+v, %v", got, err)
	}
	if got, err := old.Patch(from, SpecFields); err != nil || !reflect.DeepEqual(got, from) {
		t.Errorf("patch of every field = %+v, %v; want %+v", got, err, from)
	}
	if _, err := old.Patch(from, []string{"workdir"}); err == nil || !strings.Contains(err.Error(), `"workdir" is not a field of a job; use schedule,`) {
		t.Errorf("an unknown field: %v", err)
	}
}
