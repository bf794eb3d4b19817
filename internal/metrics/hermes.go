package metrics

import (
	"cmp"
	"slices"
	"time"
)

// The metric families hermes writes. Their names are what dashboards and
// alerts depend on: change one only with a note in the README.
const (
	Turns            = "hermes_turns_total"
	Iterations       = "hermes_agent_iterations_total"
	ToolCalls        = "hermes_tool_calls_total"
	ToolDuration     = "hermes_tool_duration_seconds"
	ModelDuration    = "hermes_model_call_duration_seconds"
	Tokens           = "hermes_tokens_total"
	Cost             = "hermes_cost_usd_total"
	GatewayMessages  = "hermes_gateway_messages_total"
	GatewayFailures  = "hermes_gateway_send_failures_total"
	QueueDepth       = "hermes_queue_depth"
	SchedulerFires   = "hermes_scheduler_fires_total"
	SchedulerCatchUp = "hermes_scheduler_catchups_total"
	SchedulerFailed  = "hermes_scheduler_failures_total"
	SpansDropped     = "hermes_trace_spans_dropped_total"
)

// LocalUser is the user label of turns that have no user: the owner at
// the terminal, a job, a single-user home.
const LocalUser = "local"

// Turn counts a finished turn by where it came from and how it ended
// (the loop's stop reason: "done", "max_turns", "error", "interrupted"),
// and the loop's iterations in it.
func (s *Set) Turn(source, outcome string, iterations int) {
	s.counter(1, Turns, "source", source, "outcome", outcome)
	if iterations > 0 {
		s.counter(uint64(iterations), Iterations, "source", source)
	}
}

// ToolCall counts one finished tool call by tool and result status
// ("ok", "error") and records how long it took.
func (s *Set) ToolCall(tool, status string, d time.Duration) {
	s.counter(1, ToolCalls, "tool", tool, "status", status)
	s.histogram(d, ToolDuration, "tool", tool)
}

// ModelCall records how long one call of model took, by outcome ("ok",
// "error").
func (s *Set) ModelCall(model, outcome string, d time.Duration) {
	s.histogram(d, ModelDuration, "model", model, "outcome", outcome)
}

// Usage adds one model call's tokens and estimated cost in US dollars to
// model's and user's totals; an empty user is LocalUser.
func (s *Set) Usage(model, user string, input, output int, cost float64) {
	if user == "" {
		user = LocalUser
	}
	s.tally(model, user, input, output, cost)
	if input > 0 {
		s.counter(uint64(input), Tokens, "model", model, "user", user, "type", "input")
	}
	if output > 0 {
		s.counter(uint64(output), Tokens, "model", model, "user", user, "type", "output")
	}
	if cost > 0 {
		s.floatCounter(cost, Cost, "model", model, "user", user)
	}
}

// GatewayMessage counts a chat message received ("in") or sent ("out")
// on platform.
func (s *Set) GatewayMessage(platform, direction string) {
	s.counter(1, GatewayMessages, "platform", platform, "direction", direction)
}

// GatewaySendFailure counts a message to platform that could not be sent.
func (s *Set) GatewaySendFailure(platform string) {
	s.counter(1, GatewayFailures, "platform", platform)
}

// Queue registers the length of a queue ("outbound", "tasks"), read by
// depth at every scrape.
func (s *Set) Queue(queue string, depth func() int) {
	s.Gauge(func() float64 { return float64(depth()) }, QueueDepth, "queue", queue)
}

// SchedulerFire counts a scheduled job's run once it ended; catchUp says
// it ran for a fire missed while hermes was down, failed that it ended in
// an error.
func (s *Set) SchedulerFire(catchUp, failed bool) {
	s.counter(1, SchedulerFires)
	if catchUp {
		s.counter(1, SchedulerCatchUp)
	}
	if failed {
		s.counter(1, SchedulerFailed)
	}
}

// SpansDropped counts trace spans the exporter dropped because its queue
// was full or the collector refused them.
func (s *Set) SpansDropped(n int) {
	if n > 0 {
		s.counter(uint64(n), SpansDropped)
	}
}

// UsageTotal is what one model used for one user: how a job process
// tells hermes serve, which counts it, what its turns used.
type UsageTotal struct {
	Model  string  `json:"model"`
	User   string  `json:"user"`
	Input  int64   `json:"input_tokens"`
	Output int64   `json:"output_tokens"`
	Cost   float64 `json:"cost_usd"`
}

// tally adds to the totals UsageTotals returns.
func (s *Set) tally(model, user string, input, output int, cost float64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]string{model, user}
	u := s.usage[k]
	if u == nil {
		if len(s.usage) >= MaxSeries {
			k = [2]string{Other, Other}
			u = s.usage[k]
		}
		if u == nil {
			u = &UsageTotal{Model: k[0], User: k[1]}
			s.usage[k] = u
		}
	}
	u.Input += int64(input)
	u.Output += int64(output)
	u.Cost += cost
}

// UsageTotals returns the tokens and cost counted so far, by model and
// user, in that order.
func (s *Set) UsageTotals() []UsageTotal {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]UsageTotal, 0, len(s.usage))
	for _, u := range s.usage {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b UsageTotal) int {
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.User, b.User))
	})
	return out
}

// AddUsage counts totals another process reported (a job process's).
func (s *Set) AddUsage(totals []UsageTotal) {
	for _, u := range totals {
		s.Usage(u.Model, u.User, int(u.Input), int(u.Output), u.Cost)
	}
}
