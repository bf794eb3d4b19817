package sqlite

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// The multi-process test re-runs this test binary as its children; these
// variables tell a child what to do.
const (
	envChildDB       = "HERMES_SQLITE_CHILD_DB"
	envChildName     = "HERMES_SQLITE_CHILD_NAME"
	envChildDuration = "HERMES_SQLITE_CHILD_DURATION"
	// envMultiProcDuration overrides how long the children append
	// (a time.ParseDuration string).
	envMultiProcDuration = "HERMES_SQLITE_MULTIPROC_DURATION"
)

const (
	multiProcChildren = 8
	multiProcDuration = 10 * time.Second
	multiProcShort    = 2 * time.Second
	resultPrefix      = "MULTIPROC_RESULT"
)

// TestMultiProcessAppend has 8 processes open one new database file at
// once (so they also race to create the schema) and append to it for 10
// seconds, as a daemon, cron runs and CLIs do. No process may see an
// error, and no append may be lost: the rows equal the sum of what the
// children report, and every session's message_count equals its rows.
// The children run the store as configured for production (1 s busy
// timeout, then jittered retries); TestWriteRetriesWhileLocked covers
// the retries on their own. (Children with a 2 ms busy timeout retried
// about 100 times each and, under the race detector's slowdown, one now
// and then ran out of retries: patience is what the 1 s is for.)
func TestMultiProcessAppend(t *testing.T) {
	d := multiProcDuration
	if testing.Short() {
		d = multiProcShort
	}
	if v := os.Getenv(envMultiProcDuration); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s=%q: %v", envMultiProcDuration, v, err)
		}
	}
	path := filepath.Join(t.TempDir(), "state.db")

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		appended int64
		retries  int64
	)
	for i := range multiProcChildren {
		name := fmt.Sprintf("child%d", i)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$", "-test.v")
		cmd.Env = append(os.Environ(), envChildDB+"="+path, envChildName+"="+name,
			envChildDuration+"="+d.String())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		wg.Go(func() {
			err := cmd.Wait()
			var n, appends, errs, retried int64
			found := false
			sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
			for sc.Scan() {
				if rest, ok := strings.CutPrefix(sc.Text(), resultPrefix+" "); ok {
					_, perr := fmt.Sscanf(rest, "messages=%d appends=%d errors=%d retries=%d", &n, &appends, &errs, &retried)
					found = perr == nil
				}
			}
			mu.Lock()
			defer mu.Unlock()
			appended += n // what it did append must be there, error or not
			retries += retried
			if err != nil || !found || errs > 0 {
				t.Errorf("%s: exit %v, result found %v, %d errors; output:\n%s", name, err, found, errs, out.String())
				return
			}
			t.Logf("%s: %d messages in %d appends, %d retries", name, n, appends, retried)
		})
	}
	wg.Wait()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	var rows int64
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != appended {
		t.Errorf("database holds %d messages, children appended %d", rows, appended)
	}
	var mismatched int
	if err := s.read.QueryRowContext(ctx, `
SELECT count(*) FROM sessions s
WHERE message_count != (SELECT count(*) FROM messages m WHERE m.session_id = s.id)`).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched > 0 {
		t.Errorf("%d sessions have a message_count different from their rows", mismatched)
	}
	var check string
	if err := s.read.QueryRowContext(ctx, `SELECT integrity_check FROM pragma_integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity check: %q, %v", check, err)
	}
	if !t.Failed() {
		t.Logf("%d processes appended %d messages in %s (%.0f messages/s), %d retries, 0 errors, 0 lost",
			multiProcChildren, appended, d, float64(appended)/d.Seconds(), retries)
	}
}

// TestHelperAppender is a child of TestMultiProcessAppend; run on its own
// it does nothing.
func TestHelperAppender(t *testing.T) {
	path := os.Getenv(envChildDB)
	if path == "" {
		t.Skip("runs only as a child of TestMultiProcessAppend")
	}
	name := os.Getenv(envChildName)
	d, err := time.ParseDuration(os.Getenv(envChildDuration))
	if err != nil {
		t.Fatalf("duration: %v", err)
	}
	retries := new(atomic.Int64)
	s, err := Open(path, Options{Logger: slog.New(retryCounter{retries})})
	if err != nil {
		fmt.Printf("%s messages=0 appends=0 errors=1 retries=0\n", resultPrefix)
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()

	ctx := context.Background()
	var messages, appends, errs int64
	fail := func(what string, err error) {
		errs++
		t.Errorf("%s: %s: %v", name, what, err)
	}
	var sess *session.Session
	deadline := time.Now().Add(d)
	for i := 0; time.Now().Before(deadline); i++ {
		if i%50 == 0 {
			sess = &session.Session{Source: name}
			if err := s.Create(ctx, sess); err != nil {
				fail("create", err)
				continue
			}
		}
		call := fmt.Sprintf("%s_%d", name, i)
		batch := []*session.Message{
			{Message: llm.AssistantMessage("running step "+call, llm.ToolCall{ID: call, Name: "terminal", Arguments: `{"command":"make"}`})},
			{Message: llm.ToolResultMessage(call, "terminal", "构建成功 build ok "+call)},
		}
		if err := s.Append(ctx, sess.ID, batch[:1+i%2]...); err != nil {
			fail("append", err)
			continue
		}
		appends++
		messages += int64(1 + i%2)
		if i%10 == 0 {
			if err := s.AddUsage(ctx, sess.ID, session.Usage{InputTokens: 10}); err != nil {
				fail("add usage", err)
			}
			if _, err := s.Search(ctx, "构建成功", session.SearchOptions{Limit: 5}); err != nil {
				fail("search", err)
			}
		}
	}
	fmt.Printf("%s messages=%d appends=%d errors=%d retries=%d\n", resultPrefix, messages, appends, errs, retries.Load())
}
