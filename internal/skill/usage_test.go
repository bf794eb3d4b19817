package skill

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// TestUsageRecorded: the agent's create records its origin and time, a
// skill_view and an invocation their times and counts, a patch the change
// and clears the stale mark; an install is the user's; a delete forgets
// the record. The records do not touch the skills' files.
func TestUsageRecorded(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	lib := Open(Options{Dir: dir, Platform: "linux", Clock: clk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tools := Tools(lib)
	manage, view := tools[3], tools[2]
	if _, err := call(t, manage, `{"action":"create","name":"deploy-notes","category":"devops","content":`+quote(doc("deploy-notes", "How to deploy"))+`}`); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := call(t, view, `{"name":"deploy-notes"}`); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := lib.Invocation("deploy-notes", ""); err != nil {
		t.Fatal(err)
	}
	recs, err := lib.Usage()
	if err != nil {
		t.Fatal(err)
	}
	u := recs["deploy-notes"]
	if u.CreatedBy != OriginAgent || !u.CreatedAt.Equal(start) || !u.ViewedAt.Equal(start.Add(time.Hour)) ||
		!u.UsedAt.Equal(start.Add(2*time.Hour)) || u.Views != 1 || u.Uses != 1 {
		t.Errorf("record %+v", u)
	}
	if !u.LastActivity().Equal(start.Add(2 * time.Hour)) {
		t.Errorf("last activity %v", u.LastActivity())
	}

	if err := lib.UpdateUsage(func(r map[string]Usage) error {
		x := r["deploy-notes"]
		x.StaleSince = start
		r["deploy-notes"] = x
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if _, err := call(t, manage, `{"action":"patch","name":"deploy-notes","old_string":"Do it.","new_string":"Do it carefully."}`); err != nil {
		t.Fatal(err)
	}
	recs, _ = lib.Usage()
	if u := recs["deploy-notes"]; u.Stale() || !u.ModifiedAt.Equal(start.Add(3*time.Hour)) {
		t.Errorf("after a patch: %+v", u)
	}

	src := t.TempDir()
	writeSkill(t, src, "", "from-a-friend", doc("from-a-friend", "A shared procedure"))
	if _, err := lib.Install(context.Background(), filepath.Join(src, "from-a-friend")); err != nil {
		t.Fatal(err)
	}
	recs, _ = lib.Usage()
	if recs["from-a-friend"].CreatedBy != OriginUser {
		t.Errorf("installed skill's record %+v", recs["from-a-friend"])
	}
	if _, err := call(t, manage, `{"action":"delete","name":"deploy-notes"}`); err != nil {
		t.Fatal(err)
	}
	recs, _ = lib.Usage()
	if _, ok := recs["deploy-notes"]; ok {
		t.Errorf("a deleted skill keeps its record")
	}
	if _, err := os.Stat(filepath.Join(dir, ".curator", "usage.json")); err != nil {
		t.Errorf("usage file: %v", err)
	}
	if n := len(lib.Skills()); n != 1 {
		t.Errorf("%d skills; the records are not skills", n)
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
