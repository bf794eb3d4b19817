package hermesagent

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// The jobs of a Hermes jobs.json arrive with their schedule, prompt,
// skills, model, toolsets, delivery and pause; what hermes cannot keep
// is in the report; a past one-shot is not imported; a second import
// imports nothing.
func TestImportJobs(t *testing.T) {
	ctx := context.Background()
	db, err := sqlitedb.Open(ctx, filepath.Join(t.TempDir(), "hermes-state.db"), sqlitedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := cron.NewStore(db, cron.StoreOptions{DefaultZone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	dry, err := ImportJobs(ctx, st, "testdata/jobs.json", now, true)
	if err != nil || dry.Imported != 3 {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if jobs, _ := st.List(ctx); len(jobs) != 0 {
		t.Fatalf("the dry run created %d jobs", len(jobs))
	}
	rep, err := ImportJobs(ctx, st, "testdata/jobs.json", now, false)
	if err != nil || rep.Imported != 3 {
		t.Fatalf("import: %+v, %v", rep, err)
	}
	mail, err := st.Get(ctx, "summarize-my-unread-email-3f9c2a")
	if err != nil || mail.Schedule != "0 9 * * *" || !slices.Equal(mail.Skills, []string{"gmail"}) ||
		!slices.Equal(mail.Deliver, []string{"telegram:123456789"}) || !mail.Enabled || mail.NextRunAt.IsZero() {
		t.Errorf("email job: %+v, %v", mail, err)
	}
	disk, err := st.Get(ctx, "check-disk-a1b2c3")
	if err != nil || disk.Schedule != "every 30m" || disk.Enabled || disk.Model != "openai/gpt-4o-mini" ||
		!slices.Equal(disk.Toolsets, []string{"terminal", "cron"}) || !slices.Equal(disk.Deliver, []string{"local"}) {
		t.Errorf("disk job: %+v, %v", disk, err)
	}
	cert, err := st.Get(ctx, "renew-the-cert-0a0b0c")
	if err != nil || !cert.NextRunAt.Equal(time.Date(2030, 1, 5, 2, 0, 0, 0, time.UTC)) || !slices.Equal(cert.Deliver, []string{"telegram:-100200300"}) {
		t.Errorf("one-shot job: %+v, %v", cert, err)
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, want := range []string{`delivery "discord:998877" is kept in the local output`, "workdir /srv/app is not kept", "old-reminder-ffeedd: not imported: its one-shot time"} {
		if !strings.Contains(notes, want) {
			t.Errorf("report lacks %q:\n%s", want, notes)
		}
	}
	again, err := ImportJobs(ctx, st, "testdata/jobs.json", now, false)
	if err != nil || again.Imported != 0 || again.Present != 3 {
		t.Errorf("second import: %+v, %v", again, err)
	}
}
