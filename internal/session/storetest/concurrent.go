package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
)

// testConcurrentAppend has goroutines append tool-call turns to two
// sessions at once, and read while they do: no append may fail or be
// lost, each goroutine's turns stay in its order, and the counts match
// the rows.
func testConcurrentAppend(t *testing.T, s session.Store) {
	const (
		workers = 8
		turns   = 20
	)
	sessions := []*session.Session{
		create(t, s, session.Session{Source: "cli"}),
		create(t, s, session.Session{Source: "cron"}),
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*turns)
	for w := range workers {
		wg.Go(func() {
			sess := sessions[w%len(sessions)]
			for i := range turns {
				call := fmt.Sprintf("w%d_%d", w, i)
				err := s.Append(ctx(t), sess.ID,
					callMsg(call, "terminal", fmt.Sprintf(`{"command":"echo %s"}`, call)),
					resultMsg(call, "terminal", "worker output "+call))
				if err != nil {
					errs <- fmt.Errorf("worker %d turn %d: %w", w, i, err)
					return
				}
				if _, err := s.Search(ctx(t), "worker output", session.SearchOptions{SessionID: sess.ID, Limit: 3}); err != nil {
					errs <- fmt.Errorf("worker %d search: %w", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	total := 0
	for _, sess := range sessions {
		msgs := messages(t, s, sess.ID)
		total += len(msgs)
		got := get(t, s, sess.ID)
		if got.MessageCount != len(msgs) || got.ToolCallCount != len(msgs)/2 {
			t.Errorf("session %s: counts %d/%d, rows %d", sess.ID, got.MessageCount, got.ToolCallCount, len(msgs))
		}
		next := map[string]int{} // worker → next turn expected
		for i := 0; i+1 < len(msgs); i += 2 {
			call, result := msgs[i], msgs[i+1]
			if len(call.ToolCalls) != 1 || result.ToolCallID != call.ToolCalls[0].ID {
				t.Fatalf("session %s: a turn was split at message %d", sess.ID, i)
			}
			var w, turn int
			if _, err := fmt.Sscanf(result.ToolCallID, "w%d_%d", &w, &turn); err != nil {
				t.Fatalf("bad call id %q", result.ToolCallID)
			}
			key := fmt.Sprint(w)
			if turn != next[key] {
				t.Errorf("session %s: worker %d turn %d came where turn %d was due", sess.ID, w, turn, next[key])
			}
			next[key] = turn + 1
		}
	}
	if total != workers*turns*2 {
		t.Errorf("stored %d messages, want %d", total, workers*turns*2)
	}
}
