package compress

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
)

// testSecret looks like an OpenAI key to redact.Secrets.
const testSecret = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd_EfGhIjKlMnOpQrStUvWx"

func newCompressor(t *testing.T, s Summarizer, clk *clock.Fake) *Compressor {
	t.Helper()
	if clk == nil {
		clk = clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	c, err := New(Options{Window: 32_000, ReplyBudget: 4_000, Summarizer: s, Estimate: roughTokens, Clock: clk, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// inProgress appends a user ask and n tool exchanges not yet answered by
// a final reply: the task the model is working on.
func inProgress(t *testing.T, msgs []llm.Message, ask string, n int) []llm.Message {
	msgs = append(msgs, llm.UserMessage(ask))
	for i := range n {
		id := fmt.Sprintf("%s_call_%d", strings.Fields(ask)[0], i)
		msgs = append(msgs,
			llm.AssistantMessage("", llm.ToolCall{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"db/migrate_%d.sql"}`, i)}),
			llm.ToolResultMessage(id, "read_file", envelopeOK(t, map[string]any{"content": strings.Repeat("ALTER TABLE t;\n", 60), "path": fmt.Sprintf("db/migrate_%d.sql", i)})))
	}
	return msgs
}

func TestCompressLongConversation(t *testing.T) {
	msgs := conversation(t, 200)
	msgs[0] = llm.UserMessage("task 1: fix the failing test in pkg1; the key is " + testSecret)
	msgs = inProgress(t, msgs, "migrate: move the database to schema v2", 6)
	if err := Validate(msgs); err != nil {
		t.Fatalf("generated conversation is invalid: %v", err)
	}
	input := append([]llm.Message(nil), msgs...)
	rec := &recorder{reply: func(r SummaryRequest) (string, error) { return goodSummary("first"), nil }}
	c := newCompressor(t, rec, nil)
	if !c.ShouldCompress(c.Estimate(msgs)) {
		t.Fatalf("a %d-token conversation should pass the threshold", c.Estimate(msgs))
	}

	res, err := c.Compress(context.Background(), msgs, CompressOptions{Focus: "the database migration"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first: %d messages, %d -> %d tokens, %d dropped", len(res.Messages), res.Before, res.After, res.Dropped)
	if !reflect.DeepEqual(msgs, input) {
		t.Fatal("Compress modified its input")
	}
	if err := Validate(res.Messages); err != nil {
		t.Fatalf("compressed conversation is invalid: %v", err)
	}
	if res.After >= res.Before/2 || res.Dropped < 100 || res.Fallback {
		t.Errorf("Before %d After %d Dropped %d Fallback %v: want a real reduction", res.Before, res.After, res.Dropped, res.Fallback)
	}
	if got := lastUserText(res.Messages); got != "migrate: move the database to schema v2" {
		t.Errorf("last user ask = %q, want the task in progress", got)
	}
	// The tail from the last user ask on is kept verbatim.
	tail := msgs[lastUser(msgs):]
	if got := res.Messages[len(res.Messages)-len(tail):]; !reflect.DeepEqual(got, tail) {
		t.Error("the tail was not kept verbatim")
	}
	// Head: the first three messages, the first exchange, stay (pruned).
	if res.Messages[0].Role != llm.RoleUser || res.Messages[1].ToolCalls[0].ID != msgs[1].ToolCalls[0].ID {
		t.Errorf("head not kept: %s", describeRoles(res.Messages[:3]))
	}
	if s, ok := FindSummary(res.Messages); !ok || s != goodSummary("first") {
		t.Errorf("summary not found in the result: %q", s)
	}

	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("summarizer called %d times, want 1", len(reqs))
	}
	req := reqs[0]
	if req.PreviousSummary != "" || req.Focus != "the database migration" {
		t.Errorf("request previous %q focus %q", req.PreviousSummary, req.Focus)
	}
	if len(req.Turns) != res.Dropped {
		t.Errorf("summarizer saw %d turns, %d were dropped", len(req.Turns), res.Dropped)
	}
	if req.BudgetTokens != SummaryBudget(c.Estimate(req.Turns), 32_000) || req.BudgetTokens < MinSummaryTokens {
		t.Errorf("budget = %d", req.BudgetTokens)
	}
	if !strings.Contains(req.Language, "Latin") {
		t.Errorf("language = %q, want a Latin-script language", req.Language)
	}
	for _, m := range req.Turns {
		if m.Role == llm.RoleTool && len(m.Text()) > MinPrunedResultChars {
			t.Errorf("the summarizer got an unpruned tool result: %.80q", m.Text())
		}
	}

	// A second compression updates the first summary and keeps no head.
	more := inProgress(t, append(res.Messages, llm.AssistantMessage("Migration files read.")), "deploy: roll out v2 to staging", 30)
	rec.reply = func(SummaryRequest) (string, error) { return goodSummary("second"), nil }
	res2, err := c.Compress(context.Background(), more, CompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(res2.Messages); err != nil {
		t.Fatalf("second compression is invalid: %v", err)
	}
	t.Logf("second: %d -> %d messages, %d -> %d tokens, %d dropped", len(more), len(res2.Messages), res2.Before, res2.After, res2.Dropped)
	req2 := rec.requests()[1]
	if req2.PreviousSummary != goodSummary("first") {
		t.Errorf("second request's previous summary = %q", req2.PreviousSummary)
	}
	for _, m := range req2.Turns {
		if strings.Contains(m.Text(), SummaryMarker) {
			t.Error("the old summary was sent as a turn as well as the previous summary")
		}
	}
	if strings.Contains(fmt.Sprint(res2.Messages), "task 1: fix") {
		t.Error("the head was kept on a second compression")
	}
	if n := strings.Count(fmt.Sprint(res2.Messages), SummaryMarker); n != 1 {
		t.Errorf("%d summaries in the result, want 1", n)
	}
	if got := lastUserText(res2.Messages); !strings.HasSuffix(got, "deploy: roll out v2 to staging") {
		t.Errorf("last user ask after the second compression = %q", got)
	}
}

func TestCompressRedactsSecrets(t *testing.T) {
	msgs := conversation(t, 120)
	msgs[10] = llm.UserMessage("use the key " + testSecret + " for the deploy")
	msgs = inProgress(t, msgs, "now: deploy", 2)
	rec := &recorder{reply: func(SummaryRequest) (string, error) { return goodSummary("g"), nil }}
	if _, err := newCompressor(t, rec, nil).Compress(context.Background(), msgs, CompressOptions{PreviousSummary: "old summary with " + testSecret}); err != nil {
		t.Fatal(err)
	}
	req := rec.requests()[0]
	all := fmt.Sprint(req.Turns) + req.PreviousSummary
	if strings.Contains(all, testSecret) || !strings.Contains(all, "[REDACTED:") {
		t.Errorf("the secret reached the summarizer unredacted")
	}
}

func TestCompressAbortsWhenUnreachable(t *testing.T) {
	kinds := []llm.ErrorKind{llm.ErrNetwork, llm.ErrAuth, llm.ErrOverloaded, llm.ErrServer, llm.ErrRateLimited}
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			msgs := inProgress(t, conversation(t, 100), "now: the current task", 2)
			input := append([]llm.Message(nil), msgs...)
			clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			rec := &recorder{reply: func(SummaryRequest) (string, error) {
				return "", fmt.Errorf("summary call: %w", &llm.Error{Kind: kind, Message: "connection refused"})
			}}
			c := newCompressor(t, rec, clk)
			res, err := c.Compress(context.Background(), msgs, CompressOptions{})
			if !errors.Is(err, ErrSummaryUnavailable) || llm.KindOf(err) != kind {
				t.Fatalf("err = %v, want ErrSummaryUnavailable wrapping %s", err, kind)
			}
			if !reflect.DeepEqual(res.Messages, input) || res.Summary != "" || res.After != res.Before {
				t.Fatal("the conversation was changed by an aborted compression")
			}

			// Cooldown: not due, unforced calls refused without a model call.
			if c.Due() {
				t.Error("Due right after an abort")
			}
			if _, err := c.Compress(context.Background(), msgs, CompressOptions{}); !errors.Is(err, ErrCoolingDown) {
				t.Errorf("unforced Compress during the cooldown: err = %v, want ErrCoolingDown", err)
			}
			if n := len(rec.requests()); n != 1 {
				t.Errorf("summarizer called %d times, want 1", n)
			}
			clk.Advance(9 * time.Minute)
			if c.Due() {
				t.Error("Due 9 minutes after an abort")
			}
			rec.reply = func(SummaryRequest) (string, error) { return goodSummary("g"), nil }
			if res, err := c.Compress(context.Background(), msgs, CompressOptions{Force: true}); err != nil || res.Dropped == 0 {
				t.Errorf("forced Compress during the cooldown: %v, dropped %d", err, res.Dropped)
			}
			clk.Advance(2 * time.Minute)
			if !c.Due() {
				t.Error("not Due after the cooldown")
			}
		})
	}
}

func TestCompressFallback(t *testing.T) {
	tests := []struct {
		name  string
		reply func(SummaryRequest) (string, error)
	}{
		{"refusal", func(SummaryRequest) (string, error) { return "I'm sorry, I can't help with that.", nil }},
		{"empty", func(SummaryRequest) (string, error) { return "   ", nil }},
		{"invalid response", func(SummaryRequest) (string, error) {
			return "", &llm.Error{Kind: llm.ErrInvalidResponse, Message: "the summary reply was empty"}
		}},
		{"context overflow of the summary call", func(SummaryRequest) (string, error) {
			return "", &llm.Error{Kind: llm.ErrContextOverflow, Status: 400}
		}},
		{"plain error", func(SummaryRequest) (string, error) { return "", errors.New("parser exploded") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := inProgress(t, conversation(t, 150), "now: the current task", 2)
			c := newCompressor(t, &recorder{reply: tt.reply}, nil)
			res, err := c.Compress(context.Background(), msgs, CompressOptions{PreviousSummary: "## Goal\nearlier goal"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Fallback || !strings.HasPrefix(res.Summary, "[fallback summary — the summarizer failed: ") {
				t.Fatalf("Fallback %v, summary %.120q", res.Fallback, res.Summary)
			}
			for _, want := range []string{"task 2: fix the failing test in pkg2", "- terminal ×", "[terminal] ran `go test", "earlier goal"} {
				if !strings.Contains(res.Summary, want) {
					t.Errorf("fallback summary lacks %q:\n%s", want, res.Summary)
				}
			}
			if err := Validate(res.Messages); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if !c.Due() {
				t.Error("a fallback started the cooldown")
			}
			if got := lastUserText(res.Messages); got != "now: the current task" {
				t.Errorf("last user ask = %q", got)
			}
		})
	}
}

func TestCompressNothingToSummarize(t *testing.T) {
	msgs := shape("uaua")
	rec := &recorder{reply: func(SummaryRequest) (string, error) { return goodSummary("g"), nil }}
	res, err := newCompressor(t, rec, nil).Compress(context.Background(), msgs, CompressOptions{Force: true})
	if err != nil || res.Dropped != 0 || len(res.Messages) != 4 || len(rec.requests()) != 0 {
		t.Errorf("err %v dropped %d len %d calls %d", err, res.Dropped, len(res.Messages), len(rec.requests()))
	}
}

func TestCompressCanceledDoesNotCoolDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := &recorder{reply: func(SummaryRequest) (string, error) { return "", ctx.Err() }}
	c := newCompressor(t, rec, nil)
	_, err := c.Compress(ctx, inProgress(t, conversation(t, 100), "now: x", 1), CompressOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !c.Due() {
		t.Error("a cancelled compression started the cooldown")
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	s := &recorder{}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no window", Options{Summarizer: s}, "Window"},
		{"reply budget too big", Options{Window: 100, ReplyBudget: 100, Summarizer: s}, "ReplyBudget"},
		{"threshold above one", Options{Window: 100, Threshold: 1.5, Summarizer: s}, "Threshold"},
		{"no summarizer", Options{Window: 100}, "Summarizer"},
	}
	for _, tt := range tests {
		if _, err := New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one naming %s", tt.name, err, tt.want)
		}
	}
}

func TestCompressOneLongRequest(t *testing.T) {
	// One request followed by a long run of tool calls: the request must
	// stay, so nothing can be summarized, but old results still shrink.
	msgs := inProgress(t, nil, "audit: read every migration file", 80)
	rec := &recorder{reply: func(SummaryRequest) (string, error) { return goodSummary("g"), nil }}
	res, err := newCompressor(t, rec, nil).Compress(context.Background(), msgs, CompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Dropped != 0 || len(rec.requests()) != 0 {
		t.Errorf("dropped %d with %d summary calls; the only request would be lost", res.Dropped, len(rec.requests()))
	}
	if res.After > res.Before/3 {
		t.Errorf("old results not pruned: %d -> %d tokens", res.Before, res.After)
	}
	if lastUserText(res.Messages) != "audit: read every migration file" || len(res.Messages) != len(msgs) {
		t.Error("the request or the exchanges were lost")
	}
	if got, want := res.Messages[2].Text(), "[read_file] read db/migrate_0.sql (900 chars)"; got != want {
		t.Errorf("first result = %q, want %q", got, want)
	}
	if err := Validate(res.Messages); err != nil {
		t.Error(err)
	}
}
