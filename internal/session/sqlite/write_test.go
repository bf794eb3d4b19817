package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// retryCounter is a slog.Handler counting the store's retry records.
type retryCounter struct{ n *atomic.Int64 }

func (h retryCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h retryCounter) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h retryCounter) WithGroup(string) slog.Handler            { return h }
func (h retryCounter) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "retrying") {
		h.n.Add(1)
	}
	return nil
}

// lockedStore opens a store whose SQLite busy timeout is 1 ms, so the
// store's own retries do the waiting, and another connection to the same
// file that takes the write lock and holds it until release is called.
func lockedStore(t *testing.T) (s *Store, retries *atomic.Int64, sessionID string, release func() error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	retries = new(atomic.Int64)
	s, err := Open(path, Options{BusyTimeout: time.Millisecond, Logger: slog.New(retryCounter{retries})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sess := &session.Session{Source: "cli"}
	if err := s.Create(t.Context(), sess); err != nil {
		t.Fatal(err)
	}

	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	release = func() error {
		defer conn.Close()
		_, err := conn.ExecContext(context.Background(), "ROLLBACK")
		return err
	}
	return s, retries, sess.ID, release
}

// TestWriteRetriesWhileLocked holds the write lock from another
// connection for 300 ms: the append waits it out through the store's
// jittered retries, not SQLite's busy handler, and succeeds.
func TestWriteRetriesWhileLocked(t *testing.T) {
	s, retries, id, release := lockedStore(t)
	released := make(chan error, 1)
	time.AfterFunc(300*time.Millisecond, func() { released <- release() })
	m := &session.Message{Message: llm.UserMessage("after the lock")}
	start := time.Now()
	if err := s.Append(t.Context(), id, m); err != nil {
		t.Fatalf("Append while another connection held the lock: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if retries.Load() == 0 {
		t.Errorf("Append succeeded after %v without retrying", time.Since(start))
	}
	if got := messagesOf(t, s, id); len(got) != 1 {
		t.Errorf("%d messages stored, want 1", len(got))
	}
}

// TestWriteGivesUpWhenLockedTooLong holds the lock past every retry: the
// append fails with SQLite's busy error, after writeAttempts tries, and
// stores nothing.
func TestWriteGivesUpWhenLockedTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out every retry (about 1.3 s)")
	}
	s, retries, id, release := lockedStore(t)
	err := s.Append(t.Context(), id, &session.Message{Message: llm.UserMessage("never")})
	if err == nil || !isBusy(err) {
		t.Errorf("Append under a lock held for good: %v, want a busy error", err)
	}
	if n := retries.Load(); n != writeAttempts-1 {
		t.Errorf("%d retries, want %d", n, writeAttempts-1)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if got := messagesOf(t, s, id); len(got) != 0 {
		t.Errorf("a failed append stored %d messages", len(got))
	}
}

// TestWriteStopsAtContextEnd cancels an append waiting for the lock.
func TestWriteStopsAtContextEnd(t *testing.T) {
	s, _, id, release := lockedStore(t)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := s.Append(ctx, id, &session.Message{Message: llm.UserMessage("late")})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Append past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
}

func messagesOf(t *testing.T, s *Store, id string) []session.Message {
	t.Helper()
	msgs, err := s.Messages(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}
