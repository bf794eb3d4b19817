package facts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// The multi-process test re-runs this test binary as its children; these
// variables tell a child what to do.
const (
	envChildBackend = "HERMES_FACTS_CHILD_BACKEND"
	envChildDB      = "HERMES_FACTS_CHILD_DB"
	envChildName    = "HERMES_FACTS_CHILD_NAME"
)

const (
	childCount   = 6
	childBatches = 20
	batchSize    = 4
)

// TestMultiProcessAdd has several processes open one new database at
// once (racing to create the schema) and add facts to it, as the end of
// conversations in a daemon and a CLI do (or replicas sharing one
// PostgreSQL). Nothing may be lost, and a fact every process adds is
// stored once.
func TestMultiProcessAdd(t *testing.T) {
	dbtest.EachTarget(t, testMultiProcessAdd)
}

func testMultiProcessAdd(t *testing.T, x dbtest.Target) {
	var wg sync.WaitGroup
	for i := range childCount {
		name := fmt.Sprintf("child%d", i)
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildAdder$", "-test.v")
		cmd.Env = append(os.Environ(), envChildBackend+"="+x.Backend, envChildDB+"="+x.Where, envChildName+"="+name)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "CHILD_OK") {
				t.Errorf("%s: exit %v; output:\n%s", name, err, out.String())
			}
		})
	}
	wg.Wait()

	s := openTarget(t, x, Options{})
	fs, err := s.List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := childCount*childBatches*batchSize + 1
	if len(fs) != want {
		t.Errorf("%d facts stored, want %d", len(fs), want)
	}
	shared := 0
	for _, f := range fs {
		if strings.HasPrefix(f.Content, "Every process") {
			shared++
		}
	}
	if shared != 1 {
		t.Errorf("the fact every process added is stored %d times, want once", shared)
	}
	// The index agrees with the table.
	for _, name := range []string{"child0", "child5"} {
		got, err := s.Search(context.Background(), name, 1000)
		if err != nil || len(got) != childBatches*batchSize {
			t.Errorf("Search(%s): %d results, %v; want %d", name, len(got), err, childBatches*batchSize)
		}
	}
}

// TestChildAdder is a child of TestMultiProcessAdd; run on its own it
// does nothing.
func TestChildAdder(t *testing.T) {
	x := dbtest.Target{Backend: os.Getenv(envChildBackend), Where: os.Getenv(envChildDB)}
	name := os.Getenv(envChildName)
	if x.Where == "" {
		t.Skip("only runs as a child of TestMultiProcessAdd")
	}
	s := openTarget(t, x, Options{})
	ctx := context.Background()
	for b := range childBatches {
		batch := make([]Fact, batchSize)
		for i := range batch {
			// Subjects of their own: a later fact of a subject would
			// supersede the earlier ones.
			batch[i] = Fact{Kind: KindFact, Subject: fmt.Sprintf("%s item %d-%d", name, b, i),
				Content: fmt.Sprintf("Process %s recorded fact %d of batch %d.", name, i, b), SourceSession: name}
		}
		if b == childBatches/2 {
			batch = append(batch, Fact{Kind: KindFact, Content: "Every process agrees on this one fact."})
		}
		if _, err := s.Add(ctx, batch); err != nil {
			t.Fatalf("%s: Add batch %d: %v", name, b, err)
		}
	}
	fmt.Println("CHILD_OK")
}
