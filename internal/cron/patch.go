package cron

import (
	"fmt"
	"strings"
)

// Patch returns spec with the fields named taken from from and the rest
// left as they are: hermes cron edit and PATCH /v1/jobs change only the
// fields given. Fields are named as in JSON and YAML (schedule, prompt,
// session_type, ...); an unknown name is an error listing the known ones.
// What the result holds is checked when the store takes it.
func (spec Spec) Patch(from Spec, fields []string) (Spec, error) {
	set := map[string]func(){
		"schedule": func() { spec.Schedule = from.Schedule }, "timezone": func() { spec.Timezone = from.Timezone },
		"session_type": func() { spec.SessionType = from.SessionType }, "prompt": func() { spec.Prompt = from.Prompt },
		"skills": func() { spec.Skills = from.Skills }, "toolsets": func() { spec.Toolsets = from.Toolsets },
		"model": func() { spec.Model = from.Model }, "deliver": func() { spec.Deliver = from.Deliver },
		"script": func() { spec.Script = from.Script }, "no_agent": func() { spec.NoAgent = from.NoAgent },
		"catch_up": func() { spec.CatchUp = from.CatchUp }, "team": func() { spec.Team = from.Team },
		"memory": func() { spec.Memory = from.Memory },
	}
	for _, f := range fields {
		fn, ok := set[f]
		if !ok {
			return Spec{}, fmt.Errorf("%q is not a field of a job; use %s", f, strings.Join(SpecFields, ", "))
		}
		fn()
	}
	return spec, nil
}

// SpecFields are the names of a Spec's fields, in their order.
var SpecFields = []string{"schedule", "timezone", "session_type", "prompt", "skills", "toolsets", "model", "deliver", "script", "no_agent", "catch_up", "team", "memory"}
