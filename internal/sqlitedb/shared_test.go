package sqlitedb_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// rounds is how many times each writer of TestStoresShareOneDB goes
// through its write paths.
const rounds = 20

// TestStoresShareOneDB has the session store, the long-term facts and
// the job store, with a scheduler firing a job every second, write
// through one DB at once, as a gateway process does. With one writer
// connection, a write path that queried through the DB instead of its
// transaction would wait for ever; every write path of the three stores
// runs here, and the test fails with every goroutine's stack if they do
// not all finish. Nothing written may be lost.
func TestStoresShareOneDB(t *testing.T) {
	db, err := sqlitedb.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, err := sqlite.New(db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sessions.Close()
	fs := facts.New(db, facts.Options{})
	jobs, err := cron.NewStore(db, cron.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// A scheduler in the same process fires a job whose runs write to
	// the session store, as a job's agent turn does.
	fired := make(chan struct{}, 100)
	sched, err := cron.New(cron.Options{Store: jobs, Holder: "gateway",
		Runner: cron.RunnerFunc(func(ctx context.Context, j cron.Job, at time.Time) cron.RunResult {
			s := &session.Session{Source: "cron"}
			if err := sessions.Create(ctx, s); err != nil {
				return cron.RunResult{Err: err}
			}
			err := sessions.Append(ctx, s.ID, &session.Message{Message: llm.UserMessage("job " + j.Name)})
			fired <- struct{}{}
			return cron.RunResult{SessionID: s.ID, Output: "ran", Err: err}
		})})
	if err != nil {
		t.Fatal(err)
	}
	schedCtx, stopSched := context.WithCancel(ctx)
	schedDone := make(chan struct{})
	go func() { defer close(schedDone); sched.Run(schedCtx) }()
	if _, err := jobs.Create(ctx, cron.Job{Name: "tick", Spec: cron.Spec{Schedule: "@every 1s", Prompt: "p"}}); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	fail := func(what string, err error) {
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	wg.Go(func() { writeSessions(ctx, sessions, fail) })
	wg.Go(func() { writeFacts(ctx, fs, fail) })
	wg.Go(func() { writeJobs(ctx, jobs, fail) })
	wg.Go(func() { readAll(ctx, sessions, fs, jobs, fail) })
	waitOrDump(t, &wg, 2*time.Minute)
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Error("the scheduler fired no job")
	}
	stopSched()
	<-schedDone

	var n int
	check := func(q string, want int) {
		t.Helper()
		if err := db.Reader().QueryRow(q).Scan(&n); err != nil || n != want {
			t.Errorf("%s = %d, %v; want %d", q, n, err, want)
		}
	}
	check(`SELECT count(*) FROM sessions WHERE source = 'cli'`, rounds)
	check(`SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.source = 'cli'`, 3*rounds)
	check(`SELECT count(*) FROM facts`, rounds)
	check(`SELECT count(*) FROM cron_jobs WHERE name LIKE 'job-%'`, rounds/2)
	check(`SELECT count(*) FROM cron_runs WHERE job LIKE 'job-%' AND status = 'ok'`, rounds)
	check(`SELECT count(*) FROM cron_runs WHERE job = 'tick' AND status = 'running'`, 0)
}

// writeSessions creates sessions and appends to them, ends and titles
// them, and deletes some.
func writeSessions(ctx context.Context, st *sqlite.Store, fail func(string, error)) {
	for i := range rounds {
		s := &session.Session{Source: "cli"}
		fail("Create session", st.Create(ctx, s))
		fail("Append", st.Append(ctx, s.ID, &session.Message{Message: llm.UserMessage(fmt.Sprintf("deploy number %d 部署", i))}))
		fail("Append batch", st.Append(ctx, s.ID,
			&session.Message{Message: llm.AssistantMessage("on it")}, &session.Message{Message: llm.UserMessage("thanks")}))
		fail("AddUsage", st.AddUsage(ctx, s.ID, session.Usage{InputTokens: 10}))
		fail("SetTitle", st.SetTitle(ctx, s.ID, "deploys"))
		fail("SetSystemPrompt", st.SetSystemPrompt(ctx, s.ID, "be brief"))
		fail("End", st.End(ctx, s.ID, "done"))
		tmp := &session.Session{Source: "tmp"}
		fail("Create tmp session", st.Create(ctx, tmp))
		fail("Delete", st.Delete(ctx, tmp.ID))
	}
}

// writeFacts adds, marks used and forgets facts.
func writeFacts(ctx context.Context, fs *facts.Store, fail func(string, error)) {
	for i := range rounds {
		_, err := fs.Add(ctx, []facts.Fact{
			{Kind: facts.KindFact, Content: fmt.Sprintf("Server %d runs Fedora release %d.", i, 40+i)},
			{Kind: facts.KindFact, Content: fmt.Sprintf("Temporary note %d.", i)},
		})
		fail("Add facts", err)
		found, err := fs.Search(ctx, fmt.Sprintf("note %d", i), 5)
		fail("Search facts", err)
		for _, f := range found {
			fail("MarkUsed", fs.MarkUsed(ctx, []int64{f.ID}))
			if f.Content == fmt.Sprintf("Temporary note %d.", i) {
				fail("Forget", fs.Forget(ctx, f.ID))
			}
		}
	}
}

// writeJobs goes through every write path of the job store the
// scheduler does not already: jobs and their changes, config sync, runs
// by hand.
func writeJobs(ctx context.Context, st *cron.Store, fail func(string, error)) {
	for i := range rounds {
		name := fmt.Sprintf("job-%d", i)
		_, err := st.Create(ctx, cron.Job{Name: name, Spec: cron.Spec{Schedule: "@daily", Prompt: "p", SessionType: cron.SessionContinue}})
		fail("Create job", err)
		_, err = st.Update(ctx, name, cron.Spec{Schedule: "@hourly", Prompt: "q", SessionType: cron.SessionContinue})
		fail("Update job", err)
		fail("Pause", st.Pause(ctx, name))
		fail("Resume", st.Resume(ctx, name))
		id, err := st.StartRun(ctx, name, time.Now())
		fail("StartRun", err)
		fail("FinishRun", st.FinishRun(ctx, id, cron.RunResult{SessionID: "s", Output: "ok"}))
		_, err = st.Sync(ctx, []cron.Job{{Name: fmt.Sprintf("cfg-%d", i%3), Enabled: true, Spec: cron.Spec{Schedule: "@daily", Prompt: "p"}}})
		fail("Sync", err)
		if i%2 == 1 {
			fail("Remove", st.Remove(ctx, name))
		}
	}
}

// readAll reads through every store while the writers write.
func readAll(ctx context.Context, sessions *sqlite.Store, fs *facts.Store, jobs *cron.Store, fail func(string, error)) {
	for range rounds {
		_, err := sessions.Search(ctx, "deploy", session.SearchOptions{Limit: 5})
		fail("Search sessions", err)
		_, err = sessions.List(ctx, session.ListOptions{Limit: 5})
		fail("List sessions", err)
		_, err = fs.List(ctx, 10)
		fail("List facts", err)
		_, err = jobs.List(ctx)
		fail("List jobs", err)
		_, err = jobs.History(ctx, "tick", 5)
		fail("History", err)
		_, _, _, err = jobs.Holder(ctx)
		fail("Holder", err)
		if _, err := jobs.Get(ctx, "job-0"); err != nil && !errors.Is(err, cron.ErrNotFound) {
			fail("Get job", err)
		}
	}
}

// waitOrDump waits for wg, failing the test with every goroutine's stack
// if it takes longer than d: a deadlock shows where it waits.
func waitOrDump(t *testing.T, wg *sync.WaitGroup, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		t.Fatalf("the writers did not finish in %v; goroutines:\n%s", d, buf[:runtime.Stack(buf, true)])
	}
}
