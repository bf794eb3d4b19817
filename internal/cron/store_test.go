package cron

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// TestReopen: jobs survive closing the database and opening it again.
func TestReopen(t *testing.T) { dbtest.EachTarget(t, testReopen) }

func testReopen(t *testing.T, x dbtest.Target) {
	ctx := context.Background()
	clk := clock.NewFake(t0)
	db, err := x.TryOpen(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewStore(db, StoreOptions{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	createJob(t, st, "a", "@daily", "")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st2 := openStore(t, x, clk)
	if jobs, err := st2.List(ctx); err != nil || len(jobs) != 1 || !jobs[0].NextRunAt.Equal(t0.Add(15*time.Hour+30*time.Minute)) {
		t.Errorf("after reopen: %+v %v", jobs, err)
	}
}

// TestDefaultZone: jobs that name no zone fire in the store's default
// zone, and a zone that does not exist is refused when the store is made.
func TestDefaultZone(t *testing.T) { dbtest.Each(t, testDefaultZone) }

func testDefaultZone(t *testing.T, db sqldb.DB) {
	if _, err := NewStore(db, StoreOptions{DefaultZone: "Europe/Atlantis"}); err == nil || !strings.Contains(err.Error(), "Europe/Atlantis") {
		t.Errorf("NewStore with an unknown default zone: %v", err)
	}
	clk := clock.NewFake(t0)
	st, err := NewStore(db, StoreOptions{Clock: clk, DefaultZone: "Asia/Shanghai"})
	if err != nil {
		t.Fatal(err)
	}
	j := createJob(t, st, "morning", "0 9 * * *", "")
	// 08:30 UTC is 16:30 in Shanghai: the next 09:00 there is 01:00 UTC.
	if j.Timezone != "Asia/Shanghai" || !j.NextRunAt.Equal(time.Date(2026, 12, 3, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("job = zone %q, next %v; want Asia/Shanghai, 2026-12-03 01:00 UTC", j.Timezone, j.NextRunAt)
	}
}
