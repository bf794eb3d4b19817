// Command longsession measures what compression and prompt caching do for
// a long conversation: it runs the real hermes binary as a chat of N turns
// (each turn one terminal call printing about 1,500 characters, then an
// answer) against a scripted model (llm/llmtest), once with compression
// and once without, and reports the estimated tokens sent per model call
// and the share of each request that repeats the previous request's
// prefix byte for byte (what a provider's prompt cache can reuse).
//
//	go run ./bench/longsession [-turns 300] [-window 128000]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/bench/internal/ship"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

func main() {
	turns := flag.Int("turns", 300, "user turns in the conversation")
	window := flag.Int("window", 128_000, "the model's context window (model.context_length)")
	flag.Parse()
	bin, dir, err := ship.Hermes("hermes-bench-long-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("%d turns, window %d tokens, 2 model calls per turn\n", *turns, *window)
	for _, compress := range []bool{true, false} {
		if err := measure(bin, dir, *turns, *window, compress); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "longsession:", err)
	os.Exit(1)
}

const summary = "## Goal\nKeep the servers healthy.\n## Constraints & Preferences\n-\n## Progress\n### Done\n- earlier checks\n### In Progress\n- the current check\n### Blocked\n-\n## Key Decisions\n-\n## Relevant Files\n-\n## Next Steps\n-\n## Critical Context\n-"

func isSummary(r llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Text(), "handoff summaries")
}

func measure(bin, dir string, turns, window int, compress bool) error {
	home := filepath.Join(dir, fmt.Sprint("home-", compress))
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	cfg := fmt.Sprintf("model: {context_length: %d}\ncompression: {enabled: %v}\nmemory: {long_term: false, nudge_interval: 0}\nskills: {creation_nudge_interval: 0}\n", window, compress)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			return llmtest.Reply{Text: summary}
		}
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleUser {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"seq 1 330 | paste -sd' '"}`}}}
		}
		return llmtest.Reply{Text: "Checked: everything is within limits."}
	})
	var script strings.Builder
	for i := 1; i <= turns; i++ {
		fmt.Fprintf(&script, "check server %d and tell me if anything is off\n", i)
	}
	script.WriteString("/exit\n")
	cmd := exec.Command(bin, "chat", "--api-mode", "chat_completions", "--base-url", srv.URL()+"/v1",
		"--model", "test-model", "--api-key", "sk-bench", "--yolo")
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Dir = home
	cmd.Stdin = strings.NewReader(script.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("chat: %v\n%s", err, tail(string(out)))
	}
	var tokens []int
	var shares []float64
	var prev []byte
	summaries := 0
	for _, r := range srv.Requests() {
		if isSummary(r) {
			summaries++
			continue
		}
		system := ""
		msgs := r.Messages
		if len(msgs) > 0 && msgs[0].Role == llm.RoleSystem {
			system, msgs = msgs[0].Text(), msgs[1:]
		}
		tokens = append(tokens, llm.EstimateRequest(system, msgs, r.Tools))
		cur := stable(r)
		if prev != nil {
			shares = append(shares, float64(commonPrefix(prev, cur))/float64(len(cur)))
		}
		prev = cur
	}
	total := 0
	for _, n := range tokens {
		total += n
	}
	sorted := slices.Clone(tokens)
	slices.Sort(sorted)
	mean := 0.0
	for _, s := range shares {
		mean += s
	}
	mean /= float64(max(len(shares), 1))
	label := "without compression"
	if compress {
		label = fmt.Sprintf("with compression (%d summary calls)", summaries)
	}
	fmt.Printf("%s:\n  calls %d, tokens per call: first %d, median %d, max %d, last %d; total sent %d\n  cacheable prefix: %.1f%% of each request's bytes on average\n",
		label, len(tokens), tokens[0], sorted[len(sorted)/2], sorted[len(sorted)-1], tokens[len(tokens)-1], total, 100*mean)
	return nil
}

// stable serializes what a provider caches, in the order it renders it:
// the tools, then the messages (system first).
func stable(r llmtest.Request) []byte {
	tools, _ := json.Marshal(r.Tools)
	msgs, _ := json.Marshal(r.Messages)
	return append(tools, msgs...)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
