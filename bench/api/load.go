package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hermes-go/hermes/bench/internal/proc"
)

// loadOptions say what one phase sends.
type loadOptions struct {
	conc     int // requests at once
	rounds   int // rounds counted, after one to warm up
	stateful int // every stateful-th user keeps a stored session (0: none)
	settle   time.Duration
}

// phase is what a phase of load came to.
type phase struct {
	outcomes []outcome // of the counted rounds
	wall     time.Duration
	cpu      time.Duration // serve's, over the counted rounds
	during   []proc.Memory // sampled while requests were in flight
	after    proc.Memory   // once the load ended and serve settled
	aux      int           // model requests that were not a turn's own
}

// runPhase sends o.rounds+1 rounds of o.conc streaming chat completions
// at once to s, each round once the last has ended, and samples serve's
// memory meanwhile. The first round, in which the client opens its
// connections and serve warms up, is not counted.
func runPhase(s *serve, m *model, o loadOptions) (*phase, error) {
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.conc, DisableCompression: true}}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p := &phase{}
	sessions := make([]string, o.conc)
	var cpu0 time.Duration
	var start time.Time
	stop := func() {}
	for r := 0; r <= o.rounds; r++ {
		if r == 1 {
			start = time.Now()
			var err error
			if cpu0, err = s.cpu(); err != nil {
				return nil, err
			}
			stop = sample(s, &p.during)
		}
		out := round(ctx, c, s.url, r, sessions, o.stateful)
		if r > 0 {
			p.outcomes = append(p.outcomes, out...)
		}
	}
	p.wall = time.Since(start)
	stop()
	cpu1, err := s.cpu()
	if err != nil {
		return nil, err
	}
	p.cpu = cpu1 - cpu0
	p.aux = m.auxRequests()
	time.Sleep(o.settle)
	if p.after, err = s.memory(); err != nil {
		return nil, err
	}
	return p, nil
}

// round sends one request per user at once and waits for them all.
// A stateful user starts a session with X-Hermes-Session-Id: new and
// continues it in the next rounds.
func round(ctx context.Context, c *http.Client, url string, r int, sessions []string, stateful int) []outcome {
	out := make([]outcome, len(sessions))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range sessions {
		session := ""
		if stateful > 0 && i%stateful == 0 {
			session = sessions[i]
			if session == "" {
				session = "new"
			}
		}
		wg.Go(func() {
			<-gate
			out[i] = complete(ctx, c, url, fmt.Sprintf("req-%d-%d", r, i), session)
			if session != "" && out[i].complete {
				sessions[i] = out[i].session
			}
		})
	}
	close(gate)
	wg.Wait()
	return out
}

// sample reads serve's memory every 200 ms into into until the returned
// function has been called; into is the caller's again once it returns.
func sample(s *serve, into *[]proc.Memory) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if m, err := s.memory(); err == nil {
				*into = append(*into, m)
			}
		}
	}()
	return func() { close(quit); <-done }
}
