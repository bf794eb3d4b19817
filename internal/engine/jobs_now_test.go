package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A job started now returns at once with its run in the history as
// running; the run then ends, recorded and delivered as RunJobNow's is.
func TestStartJobNowRecordsTheRunInTheBackground(t *testing.T) {
	r := newJobRig(t)
	ctx := context.Background()
	if _, err := r.jobs.Create(ctx, cron.Job{Name: "brief", Source: cron.SourceTool, Spec: cron.Spec{Schedule: "@daily", Prompt: "brief me"}}); err != nil {
		t.Fatal(err)
	}
	r.srv.Enqueue(llmtest.Reply{Text: "all quiet"})
	id, err := r.e.StartJobNow(ctx, "brief")
	if err != nil || id == 0 {
		t.Fatalf("StartJobNow = %d, %v", id, err)
	}
	runs, err := r.jobs.History(ctx, "brief", 5)
	if err != nil || len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("history right after the start = %+v, %v", runs, err)
	}
	if err := r.e.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	runs, err = r.jobs.History(ctx, "brief", 5)
	if err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].Status != cron.StatusOK || runs[0].Output != "all quiet" || runs[0].SessionID == "" {
		t.Errorf("history after the run = %+v, %v", runs, err)
	}
	if got := r.delivered(t, "brief"); !strings.Contains(got, "all quiet") {
		t.Errorf("delivered:\n%s", got)
	}
	if _, err := r.e.StartJobNow(ctx, "nope"); !errors.Is(err, cron.ErrNotFound) {
		t.Errorf("starting a job that does not exist: %v, want ErrNotFound", err)
	}
}
