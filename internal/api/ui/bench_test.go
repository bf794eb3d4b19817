package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// seedLarge adds sessions to h until the store holds about n messages:
// sessions of 20 turns, each a question, a reply with a tool call, its
// result and an answer.
func seedLarge(b testing.TB, h *home, n int) {
	b.Helper()
	ctx := context.Background()
	const turns, perTurn = 20, 4
	at := h.clock.Now().Add(-30 * 24 * time.Hour)
	for s := 0; s*turns*perTurn < n; s++ {
		id := fmt.Sprintf("big-%05d", s)
		at = at.Add(30 * time.Minute)
		if err := h.sessions.Create(ctx, &session.Session{ID: id, Source: "telegram", Title: "conversation " + id, Model: []string{"gpt-a", "gpt-b", "claude"}[s%3], StartedAt: at}); err != nil {
			b.Fatal(err)
		}
		msgs := make([]*session.Message, 0, turns*perTurn)
		for i := range turns {
			t0 := at.Add(time.Duration(i) * time.Minute)
			callID := fmt.Sprintf("c%d", i)
			msgs = append(msgs,
				&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart(fmt.Sprintf("question %d about the quarterly numbers of project %d", i, s))}}, CreatedAt: t0},
				&session.Message{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: callID, Name: "web_search", Arguments: fmt.Sprintf(`{"query":"numbers %d %d"}`, s, i)}}}, CreatedAt: t0.Add(time.Second)},
				&session.Message{Message: llm.ToolResultMessage(callID, "web_search", `{"status":"ok","data":"three results about the numbers"}`), CreatedAt: t0.Add(3 * time.Second)},
				&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Here is what I found about the quarterly numbers: they went up.")}}, CreatedAt: t0.Add(5 * time.Second)})
		}
		if err := h.sessions.Record(ctx, id, session.Usage{InputTokens: 5000, OutputTokens: 800, CostUSD: 0.02}, msgs...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPages loads each page over a state.db of 100,000 messages and
// reports its 99th percentile (target: 50 ms).
func BenchmarkPages(b *testing.B) {
	h := seed(b)
	seedLarge(b, h, 100_000)
	d := New(h.opt)
	cookie := login(b, d)
	for _, p := range []string{"/ui/", "/ui/sessions", "/ui/sessions?page=10", "/ui/sessions?q=quarterly", "/ui/sessions/big-00500",
		"/ui/jobs", "/ui/deliveries", "/ui/costs", "/ui/platforms"} {
		b.Run(p, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, p, nil)
				req.AddCookie(cookie)
				start := time.Now()
				if w := recorder(d, req); w.Code != http.StatusOK {
					b.Fatalf("GET %s = %d", p, w.Code)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
