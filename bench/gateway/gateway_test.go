package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

// The load at a tiny scale, so the program cannot rot: a few users, in a
// direct message and a group, a redelivered update and a flooded chat,
// through the real binary; every message is answered once, whole.
func TestLoadTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs hermes serve")
	}
	dir, bin, log := buildServe(t)
	o := loadOptions{
		planOptions: planOptions{users: 6, messages: 12, groupSize: 2, groupShare: 0.67, floodChats: 1, span: 4 * time.Second, seed: 7},
		speed:       1, think: 50 * time.Millisecond, redeliver: 2,
		floodAt: time.Second, floodFor: 2 * time.Second, retryAfter: time.Second,
		wait: 30 * time.Second, bin: bin, dir: dir, log: log,
	}
	res, err := runLoad(o)
	if err != nil {
		t.Fatal(err)
	}
	if res.sent != 12 || res.answered != res.sent || res.lost+res.doubled+res.incomplete != 0 {
		data, _ := os.ReadFile(log.Name())
		t.Errorf("sent %d, answered %d, lost %d, doubled %d, incomplete %d; serve's log:\n%s",
			res.sent, res.answered, res.lost, res.doubled, res.incomplete, data)
	}
	if res.redelivered == 0 {
		t.Errorf("no update was redelivered")
	}
	if len(res.overhead[classDM]) == 0 || len(res.overhead[classGroup]) == 0 || len(res.overhead[classFlood]) == 0 {
		t.Errorf("overheads by class: %d direct, %d group, %d flooded; want some of each",
			len(res.overhead[classDM]), len(res.overhead[classGroup]), len(res.overhead[classFlood]))
	}
	if len(res.duringRSS) == 0 || res.afterRSS == 0 {
		t.Errorf("memory was not sampled: %d samples during, %.1f MB after", len(res.duringRSS), res.afterRSS)
	}
}

// buildServe builds the stripped hermes into a temporary directory and
// opens a file there for serve's log, closed when the test ends.
func buildServe(t *testing.T) (dir, bin string, log *os.File) {
	t.Helper()
	dir = t.TempDir()
	bin = filepath.Join(dir, "hermes")
	if err := ship.Build(bin, "./cmd/hermes", "../.."); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return dir, bin, log
}
