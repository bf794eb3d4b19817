package sqlite

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/storetest"
)

// openTemp opens a store on a new file in the test's temporary directory.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) session.Store { return openTemp(t) })
}

// TestConformanceShortTermsIndexed runs the suite again with every 1–2
// character CJK term answered through the trigram vocabulary: in small
// stores a scan is always cheaper, so the suite above never goes there.
func TestConformanceShortTermsIndexed(t *testing.T) {
	storetest.Run(t, func(t *testing.T) session.Store {
		s := openTemp(t)
		s.scanShortTerms = false
		return s
	})
}

// TestInjectedClockAndIDs checks that the store takes its times and ids
// from Options, and that a generated id already taken is drawn again.
func TestInjectedClockAndIDs(t *testing.T) {
	now := time.Date(2026, 12, 2, 11, 7, 37, 123456789, time.FixedZone("CST", 8*3600))
	ids := []string{"fixed_a", "fixed_a", "fixed_b"}
	s, err := Open(filepath.Join(t.TempDir(), "state.db"), Options{
		Clock: clock.NewFake(now),
		NewID: func() string { id := ids[0]; ids = ids[1:]; return id },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	a, b := &session.Session{Source: "cli"}, &session.Session{Source: "cli"}
	if err := s.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, b); err != nil {
		t.Fatalf("Create after an id collision: %v", err)
	}
	want := now.Truncate(time.Microsecond).UTC()
	if a.ID != "fixed_a" || b.ID != "fixed_b" || !a.StartedAt.Equal(want) || a.StartedAt.Location() != time.UTC {
		t.Errorf("sessions %s %v and %s, want fixed_a at %v and fixed_b", a.ID, a.StartedAt, b.ID, want)
	}
	m := &session.Message{Message: llm.UserMessage("hi")}
	if err := s.Append(ctx, a.ID, m); err != nil {
		t.Fatal(err)
	}
	if err := s.End(ctx, a.ID, "done"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !m.CreatedAt.Equal(want) || !got.EndedAt.Equal(want) {
		t.Errorf("CreatedAt %v, EndedAt %v, want %v", m.CreatedAt, got.EndedAt, want)
	}
}

// TestOpenRejectsNewerSchema refuses a file migrated by a newer program.
func TestOpenRejectsNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Open of a version 99 file: %v, want an error saying it is newer", err)
		if s != nil {
			s.Close()
		}
	}
}
