package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/notify"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestJobInactivityWatchdog: a job run whose model never answers is
// stopped once scheduler.inactivity_timeout passes without progress, on
// the engine's clock, and the failure is delivered.
func TestJobInactivityWatchdog(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	fake := clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	home := t.TempDir()
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: tool.NewRegistry()}, Clock: fake,
		Jobs: engine.Jobs{Notifier: notify.New(notify.Config{Home: home, Clock: fake}), Inactivity: 10 * time.Minute}})
	t.Cleanup(e.Close)
	// The model holds its answer back until the run gives up on it.
	arrived := make(chan struct{}, 1)
	srv.Handle(func(llmtest.Request) llmtest.Reply {
		arrived <- struct{}{}
		return llmtest.Reply{Text: "too late", Delay: time.Hour}
	})
	done := make(chan cron.RunResult, 1)
	go func() {
		done <- e.RunJob(context.Background(), cron.Job{Name: "stuck", Spec: cron.Spec{Prompt: "summarize the alerts"}}, fake.Now())
	}()
	fake.BlockUntil(1) // the watchdog's timer
	<-arrived
	fake.Advance(10*time.Minute - time.Second)
	fake.BlockUntil(1) // the watchdog found the run a second short and waits again
	select {
	case res := <-done:
		t.Fatalf("the run stopped before the timeout: %+v", res)
	default:
	}
	fake.Advance(time.Second)
	res := <-done
	if res.Err == nil || !strings.Contains(res.Err.Error(), "no progress for 10m0s") {
		t.Fatalf("result = %+v, want stopped for no progress", res)
	}
	if got := delivered(t, home, "stuck"); !strings.Contains(got, `"stuck" failed`) {
		t.Errorf("the failure was not delivered:\n%s", got)
	}
}

// factsReply is a model's extraction of one fact.
const factsReply = `[{"kind": "preference", "subject": "answer language", "content": "The user wants answers in Chinese.", "confidence": 0.9}]`

func longTermEngine(t *testing.T, fake *clock.Fake) (*engine.Engine, *llmtest.Server, *facts.Store) {
	t.Helper()
	srv := llmtest.New(t)
	st, db := openStore(t)
	fs := facts.New(db, facts.Options{Clock: fake})
	m := model(srv)
	e := engine.New(engine.Options{Store: st, Models: m, Tools: engine.Tools{Registry: tool.NewRegistry()}, Clock: fake,
		LongTerm: &engine.LongTerm{Store: fs, Model: m.m, ExtractAfter: 30 * time.Minute}})
	t.Cleanup(e.Close)
	return e, srv, fs
}

func storedFacts(t *testing.T, fs *facts.Store) []facts.Fact {
	t.Helper()
	got, err := fs.List(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestIdleSessionIsExtracted: a session left alone for
// memory.extract_after has its facts extracted once; a turn within that
// time starts the wait over.
func TestIdleSessionIsExtracted(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	e, srv, fs := longTermEngine(t, fake)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "好的"}, llmtest.Reply{Text: "明白"}, llmtest.Reply{Text: factsReply})
	first, err := e.Turn(ctx, "", engine.Input{Text: "以后请用中文回答"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake.BlockUntil(1)
	fake.Advance(20 * time.Minute)
	if _, err := e.Turn(ctx, first.SessionID, engine.Input{Text: "谢谢"}, nil); err != nil {
		t.Fatal(err)
	}
	fake.BlockUntil(1)
	fake.Advance(20 * time.Minute) // 40 minutes after the first turn, 20 after the last
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d model calls before the session was idle long enough, want the 2 turns", n)
	}
	fake.Advance(10 * time.Minute)
	if err := e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	got := storedFacts(t, fs)
	if len(got) != 1 || got[0].Content != "The user wants answers in Chinese." || got[0].SourceSession != first.SessionID {
		t.Fatalf("facts = %+v", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model calls, want the 2 turns and one extraction", n)
	}
}

// TestEndedSessionIsExtracted: ending a session (/new, quitting the chat)
// extracts its facts at once, and an unchanged session is not extracted
// twice.
func TestEndedSessionIsExtracted(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	e, srv, fs := longTermEngine(t, fake)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "好的"}, llmtest.Reply{Text: factsReply})
	res, err := e.Turn(ctx, "", engine.Input{Text: "以后请用中文回答"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.EndSession(ctx, res.SessionID, "new_session"); err != nil {
		t.Fatal(err)
	}
	if err := e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := storedFacts(t, fs); len(got) != 1 {
		t.Fatalf("facts = %+v", got)
	}
	if err := e.EndSession(ctx, res.SessionID, "exit"); err != nil {
		t.Fatal(err)
	}
	if err := e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	fake.Advance(time.Hour) // the idle timer was stopped by the end
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want the turn and one extraction", n)
	}
}

// A session ended in two processes (a chat and the serve that also had
// it) is extracted once: the store grants its messages to one
// extraction. Past the day's cap no extraction is made, and the session
// is extracted once the next day comes.
func TestExtractionOnceAndWithinTheDaysCap(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	srv := llmtest.New(t)
	st, db := openStore(t)
	fs := facts.New(db, facts.Options{Clock: fake})
	m := model(srv)
	process := func(holder string, perDay int) *engine.Engine {
		e := engine.New(engine.Options{Store: st, Models: m, Tools: engine.Tools{Registry: tool.NewRegistry()}, Clock: fake, Holder: holder,
			LongTerm: &engine.LongTerm{Store: fs, Model: m.m, MaxPerDay: perDay}})
		t.Cleanup(e.Close)
		return e
	}
	a, b := process("host/1", 2), process("host/2", 2)
	ctx := context.Background()
	turn := func(text string) string {
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		res, err := a.Turn(ctx, "", engine.Input{Text: text}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.SessionID
	}
	end := func(e *engine.Engine, id string) {
		if err := e.EndSession(ctx, id, "exit"); err != nil {
			t.Fatal(err)
		}
		if err := e.Drain(ctx); err != nil {
			t.Fatal(err)
		}
	}
	calls := func() int { return len(srv.Requests()) }
	s1 := turn("以后请用中文回答")
	srv.Enqueue(llmtest.Reply{Text: factsReply})
	end(a, s1)
	end(b, s1)
	if n := calls(); n != 2 {
		t.Fatalf("%d model calls for one turn and a session ended twice, want 2 (one extraction)", n)
	}
	s2 := turn("second")
	srv.Enqueue(llmtest.Reply{Text: "[]"})
	end(a, s2) // the second and last extraction of the day
	s3 := turn("third")
	before := calls()
	end(b, s3)
	if n := calls(); n != before {
		t.Fatalf("an extraction past the day's cap of 2 called the model (%d calls, %d before)", n, before)
	}
	fake.Advance(24 * time.Hour)
	srv.Enqueue(llmtest.Reply{Text: "[]"})
	end(b, s3)
	if n := calls(); n != before+1 {
		t.Fatalf("the next day the capped session was not extracted (%d calls, %d before)", n, before)
	}
}

// TestIdleExtractionSurvivesTheProcess: a session whose idle timer went
// with its process (a restart, a crash) is extracted by the next engine
// over the same state once ResumeExtractions takes it up: at once when
// overdue, when due otherwise, and once.
func TestIdleExtractionSurvivesTheProcess(t *testing.T) {
	fake := clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))
	srv := llmtest.New(t)
	st, db := openStore(t)
	m := model(srv)
	engineOver := func() (*engine.Engine, *facts.Store) {
		fs := facts.New(db, facts.Options{Clock: fake})
		return engine.New(engine.Options{Store: st, Models: m, Tools: engine.Tools{Registry: tool.NewRegistry()}, Clock: fake,
			LongTerm: &engine.LongTerm{Store: fs, Model: m.m, ExtractAfter: 30 * time.Minute}}), fs
	}
	ctx := context.Background()
	first, fs := engineOver()
	srv.Enqueue(llmtest.Reply{Text: "好的"}, llmtest.Reply{Text: "明白"})
	overdue, err := first.Turn(ctx, "", engine.Input{Text: "以后请用中文回答"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake.Advance(20 * time.Minute)
	if _, err := first.Turn(ctx, "", engine.Input{Text: "记住：周报周五发"}, nil); err != nil {
		t.Fatal(err)
	}
	first.Close() // the process goes, its timers with it
	if pending, err := fs.Pending(ctx, 10); err != nil || len(pending) != 2 {
		t.Fatalf("pending = %+v, %v; want both sessions due", pending, err)
	}

	fake.Advance(15 * time.Minute) // the first session is overdue, the second due in 15 minutes
	second, fs := engineOver()
	t.Cleanup(second.Close)
	srv.Enqueue(llmtest.Reply{Text: factsReply})
	if n, err := second.ResumeExtractions(ctx); err != nil || n != 2 {
		t.Fatalf("ResumeExtractions = %d, %v; want both sessions", n, err)
	}
	fake.BlockUntil(1) // the second session's timer; the overdue one fired at once
	deadline := time.Now().Add(10 * time.Second)
	for len(storedFacts(t, fs)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := second.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := storedFacts(t, fs); len(got) != 1 || got[0].SourceSession != overdue.SessionID {
		t.Fatalf("facts after the resume = %+v, want the overdue session's", got)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model calls, want the 2 turns and the overdue session's extraction", n)
	}
	srv.Enqueue(llmtest.Reply{Text: `[{"kind": "preference", "subject": "weekly report", "content": "The weekly report goes out on Fridays.", "confidence": 0.9}]`})
	fake.Advance(15 * time.Minute)
	if err := second.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := storedFacts(t, fs); len(got) != 2 {
		t.Fatalf("facts once the second session was due = %+v", got)
	}
	if pending, err := fs.Pending(ctx, 10); err != nil || len(pending) != 0 {
		t.Errorf("pending after both extractions = %+v, %v; want none", pending, err)
	}
	if n, err := second.ResumeExtractions(ctx); err != nil || n != 0 {
		t.Errorf("a second ResumeExtractions = %d, %v; want nothing left", n, err)
	}
}
