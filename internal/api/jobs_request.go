package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/notify"
)

// jobFields are the fields of a job the API may set, in the order errors
// list them.
var jobFields = []string{"name", "schedule", "prompt", "timezone", "deliver", "skills", "model", "session_type", "catch_up"}

// refusedJobField says whether field is one of a job's fields only the
// operator sets, with hermes cron create or config.yaml, and why. A job
// runs later with nobody to approve what it does, and an API key can leak
// (to a web page, or to a model acting on a prompt injection in a
// session): a script is a shell command run as is, no_agent delivers a
// script's output without a turn, and toolsets can give the job's turn
// tools the configuration keeps from turns, and a team starts many role
// agents' turns with their tools and memory. A job made through the API
// gets a prompt, whose turn has the configured tools and asks
// approvals.cron_mode for every dangerous command.
func refusedJobField(field string) (why string, refused bool) {
	switch field {
	case "script":
		return "a script is a shell command that would run later with nobody to approve it", true
	case "no_agent":
		return "no_agent delivers a script's output, and a script is set on the machine only", true
	case "toolsets":
		return "a job made here gets the configured toolsets; choosing others would give its unattended turn tools the configuration withholds", true
	case "team":
		return "a team run is many role agents' turns, unattended, with their own tools and memory", true
	}
	return "", false
}

// jobRequest is the body of POST /v1/jobs and PATCH /v1/jobs/{name}: the
// fields present, each checked.
type jobRequest struct {
	name string
	spec cron.Spec
	// fields are the spec's fields present, by their JSON names.
	fields []string
}

// decode reads and checks a job request; create says whether it makes a
// job (a name, a schedule and a prompt are needed) or changes one.
func (h *jobAPI) decode(r *http.Request, create bool) (*jobRequest, *badRequest) {
	var body map[string]json.RawMessage
	if bad := decodeBody(r, &body, "job"); bad != nil {
		return nil, bad
	}
	if body == nil {
		return nil, &badRequest{http.StatusBadRequest, "", "the body is not a JSON object; send the job's fields, like {\"name\":\"brief\",\"schedule\":\"0 9 * * *\",\"prompt\":\"...\"}"}
	}
	req := &jobRequest{}
	f := &req.spec
	dest := map[string]any{"name": &req.name, "schedule": &f.Schedule, "prompt": &f.Prompt, "timezone": &f.Timezone,
		"deliver": &f.Deliver, "skills": &f.Skills, "model": &f.Model, "session_type": &f.SessionType, "catch_up": &f.CatchUp}
	set := map[string]bool{}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if why, refused := refusedJobField(k); refused {
			return nil, &badRequest{http.StatusForbidden, k, fmt.Sprintf("%s: is not accepted through the API: %s. Set it on the machine with hermes cron create or edit, or in config.yaml", k, why)}
		}
		d, ok := dest[k]
		if !ok || (k == "name" && !create) {
			return nil, &badRequest{http.StatusBadRequest, k, fmt.Sprintf("%s: is not a field the API sets on a job; use %s", k, strings.Join(jobFields[boolInt(!create):], ", "))}
		}
		if err := json.Unmarshal(body[k], d); err != nil {
			kind := "a string"
			if k == "deliver" || k == "skills" {
				kind = "an array of strings"
			}
			return nil, &badRequest{http.StatusBadRequest, k, fmt.Sprintf("%s: %s is not accepted; it must be %s", k, body[k], kind)}
		}
		set[k] = true
		if k != "name" {
			req.fields = append(req.fields, k)
		}
	}
	if create {
		for _, k := range []string{"name", "schedule", "prompt"} {
			if !set[k] {
				return nil, &badRequest{http.StatusBadRequest, k, fmt.Sprintf("%s: is missing; a job needs a name, a schedule (like \"0 9 * * *\", @daily, \"every 30m\" or \"in 2h\") and a prompt", k)}
			}
		}
	} else if len(set) == 0 {
		return nil, &badRequest{http.StatusBadRequest, "", "nothing to change: send at least one of " + strings.Join(jobFields[1:], ", ")}
	}
	if bad := h.checkDeliver(f.Deliver); bad != nil {
		return nil, bad
	}
	if set["model"] {
		if bad := h.s.checkModel(f.Model); bad != nil {
			return nil, bad
		}
		f.Model = h.s.modelName(f.Model)
	}
	return req, nil
}

// checkDeliver accepts local and the targets config.yaml's jobs deliver
// to: a job made through the API must not send what its turn finds to an
// address the caller chose (a chat, a mailbox, a URL of an attacker's).
// Jobs are shown with their targets masked (a webhook's key is a secret
// too), so a masked target of config.yaml's stands for it.
func (h *jobAPI) checkDeliver(targets []string) *badRequest {
	for i, t := range targets {
		if DeliverAllowed(t, h.a.Deliver) {
			continue
		}
		if j := slices.IndexFunc(h.a.Deliver, func(a string) bool { return notify.Mask(a) == t }); j >= 0 {
			targets[i] = h.a.Deliver[j]
			continue
		}
		field := fmt.Sprintf("deliver[%d]", i)
		return &badRequest{http.StatusForbidden, field, fmt.Sprintf("%s: %q is not accepted through the API: a job made here delivers only to local or to a target a job of config.yaml delivers to (GET /v1/jobs shows them); add other targets on the machine with hermes cron edit --deliver", field, notify.Mask(t))}
	}
	return nil
}

// DeliverAllowed reports whether a job made through the API may deliver
// to target: local, or one of allowed, the targets config.yaml's jobs
// deliver to.
func DeliverAllowed(target string, allowed []string) bool {
	return target == "local" || slices.Contains(allowed, target)
}

// apply copies the fields given onto spec.
func (req *jobRequest) apply(spec cron.Spec) (cron.Spec, error) {
	return spec.Patch(req.spec, req.fields)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
