package metrics_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/metrics"
)

// A Set is built once by the assembly and told of what happens; a scrape
// writes every family in the Prometheus text format.
func ExampleSet() {
	m := metrics.New()
	m.Turn("telegram", "done", 3)
	m.ToolCall("terminal", "ok", 120*time.Millisecond)
	m.Usage("gpt-5", "", 1200, 80, 0.0031)
	var b bytes.Buffer
	m.WritePrometheus(&b)
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "hermes_turns") || strings.HasPrefix(line, "hermes_tokens") || strings.HasPrefix(line, "hermes_tool_calls") {
			fmt.Println(line)
		}
	}
	// Output:
	// hermes_tokens_total{model="gpt-5",user="local",type="input"} 1200
	// hermes_tokens_total{model="gpt-5",user="local",type="output"} 80
	// hermes_tool_calls_total{tool="terminal",status="ok"} 1
	// hermes_turns_total{source="telegram",outcome="done"} 1
}
