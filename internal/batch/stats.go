package batch

import (
	"maps"
	"path/filepath"
	"time"
)

// statistics sums the tool calls of the entries a run wrote, for
// statistics.json.
type statistics struct {
	run, model string
	tools      map[string]ToolStat
	partial    int
}

func (s *statistics) add(e Entry) {
	for name, t := range e.ToolStats {
		a := s.tools[name]
		a.Count += t.Count
		a.Success += t.Success
		a.Failure += t.Failure
		s.tools[name] = a
	}
	if e.Partial {
		s.partial++
	}
}

// toolRates is a tool's line of statistics.json.
type toolRates struct {
	ToolStat
	SuccessRate float64 `json:"success_rate"`
	FailureRate float64 `json:"failure_rate"`
}

// write replaces statistics.json: the figures of this run's part (the
// tool statistics of the prompts it ran) and the run's totals.
func (s *statistics) write(dir string, out *output, sum Summary, now time.Time) error {
	tools := make(map[string]toolRates, len(s.tools))
	for name, t := range maps.All(s.tools) {
		r := toolRates{ToolStat: t}
		if t.Count > 0 {
			r.SuccessRate = round(100 * float64(t.Success) / float64(t.Count))
			r.FailureRate = round(100 * float64(t.Failure) / float64(t.Count))
		}
		tools[name] = r
	}
	out.mu.Lock()
	done := len(out.done)
	out.mu.Unlock()
	return writeJSON(filepath.Join(dir, StatisticsFile), map[string]any{
		"run_name":          s.run,
		"model":             s.model,
		"total_prompts":     sum.Total,
		"completed_prompts": done,
		"ran":               sum.Done,
		"skipped":           sum.Skipped,
		"failed":            sum.Failed,
		"partial":           s.partial,
		"completed_at":      now.UTC().Format(time.RFC3339),
		"duration_seconds":  round(sum.Duration.Seconds()),
		"tool_statistics":   tools,
	})
}

func round(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
