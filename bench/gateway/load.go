package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// loadOptions are one load run's settings. Simulated durations are
// divided by speed to give wall time.
type loadOptions struct {
	planOptions
	speed float64
	// think is the model's (simulated) time per request; read is the
	// time a person takes after an answer before writing again.
	think, read time.Duration
	// redeliver is how many updates are handed to hermes a second time.
	redeliver int
	// floodAt and floodFor place the flood window in simulated time;
	// retryAfter is the wait Telegram names, in wall time.
	floodAt, floodFor, retryAfter time.Duration
	// wait bounds, in wall time, how long a reply may take before it
	// counts as lost; idle is the wall time of quiet before the memory
	// is read again.
	wait, idle time.Duration
	bin, dir   string
	env        []string
	log        io.Writer
}

// loadResult is what one run measured.
type loadResult struct {
	sent, answered, lost, doubled, incomplete, redelivered, aux int
	// overhead is the gateway's time per answered message, by class;
	// before is the part of it before the model's first request arrived,
	// for the messages outside the flooded chats.
	overhead [classes][]time.Duration
	before   []time.Duration
	// during holds the memory samples taken every second while messages
	// were in flight; after is the one taken after the idle time.
	duringRSS, duringAnon []float64
	afterRSS, afterAnon   float64
	dbMB                  float64
	// cpu is serve's CPU time from the first message to the last reply.
	cpu  time.Duration
	wall time.Duration
}

// runLoad runs one load: it starts a rig, lets the plan's users write,
// waits for the replies, idles, and works out the figures.
func runLoad(o loadOptions) (*loadResult, error) {
	r, err := startRig(rigOptions{bin: o.bin, dir: o.dir, think: wall(o.think, o.speed), env: o.env, log: o.log})
	if err != nil {
		return nil, err
	}
	defer r.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.polling(ctx); err != nil {
		return nil, err
	}
	res := &loadResult{}
	p := makePlan(o.planOptions)

	stopSampling := sample(r, &res.duringRSS, &res.duringAnon)
	cpu0, err := r.cpu()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	at := func(sim time.Duration) time.Time { return start.Add(wall(sim, o.speed)) }
	var (
		mu   sync.Mutex
		msgs []*message
		seq  atomic.Int64
		wg   sync.WaitGroup
	)
	for i := range p.users {
		u := &p.users[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev *message
			for _, sim := range u.at {
				time.Sleep(time.Until(at(sim)))
				if prev != nil {
					// A person waits for the answer, and reads it, before
					// writing again.
					select {
					case <-prev.done:
						_, _, whole := r.tap.reply(prev.tok)
						time.Sleep(time.Until(whole.Add(wall(o.read, o.speed))))
					case <-time.After(o.wait):
					}
				}
				tok := fmt.Sprintf("msg-%d", seq.Add(1))
				m := &message{tok: tok, class: u.class, done: r.tap.expect(tok, replyText(tok))}
				_, m.update = r.tg.UserMessage(telegramtest.Incoming{Chat: u.chat, From: u.who, Text: u.text(tok)})
				prev = m
				mu.Lock()
				msgs = append(msgs, m)
				mu.Unlock()
			}
		}()
	}
	stopEvents := events(o, p, r, at, func() []*message {
		mu.Lock()
		defer mu.Unlock()
		return msgs
	})
	wg.Wait()
	deadline := time.After(o.wait)
wait:
	for _, m := range msgs {
		select {
		case <-m.done:
		case <-deadline:
			break wait
		}
	}
	res.wall = time.Since(start)
	cpu1, err := r.cpu()
	if err != nil {
		return nil, err
	}
	res.cpu = cpu1 - cpu0
	stopEvents()
	stopSampling()

	time.Sleep(o.idle)
	if res.afterRSS, res.afterAnon, err = r.memory(); err != nil {
		return nil, err
	}
	res.dbMB = r.dbSize()
	res.count(r, msgs)
	return res, nil
}

// wall turns a simulated duration into wall time.
func wall(sim time.Duration, speed float64) time.Duration {
	return time.Duration(float64(sim) / speed)
}

// events runs the flood window and the redeliveries on the plan's
// timeline until the returned function is called.
func events(o loadOptions, p plan, r *rig, at func(time.Duration) time.Time, sent func() []*message) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	after := func(sim time.Duration, f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTimer(time.Until(at(sim)))
			defer t.Stop()
			select {
			case <-t.C:
				f()
			case <-stop:
			}
		}()
	}
	if len(p.floodChats) > 0 && o.floodFor > 0 {
		after(o.floodAt, func() {
			for _, c := range p.floodChats {
				r.tg.Flood(c, 1, o.retryAfter)
			}
		})
		after(o.floodAt+o.floodFor, func() {
			for _, c := range p.floodChats {
				r.tg.Flood(c, -1, 0)
			}
		})
	}
	for i := range o.redeliver {
		pick := rand.New(rand.NewPCG(o.seed, uint64(i))).Uint64()
		after(o.span*time.Duration(i+1)/time.Duration(o.redeliver+1), func() {
			// An update already handed, picked at random.
			if ms := sent(); len(ms) > 0 {
				r.tap.redeliverUpdate(ms[pick%uint64(len(ms))].update)
			}
		})
	}
	return func() { close(stop); wg.Wait() }
}

// sample reads serve's memory every second into rss and anon until the
// returned function is called.
func sample(r *rig, rss, anon *[]float64) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if a, b, err := r.memory(); err == nil {
				*rss, *anon = append(*rss, a), append(*anon, b)
			}
		}
	}()
	return func() { close(stop); <-done }
}

// count works out, for every message, whether its reply came once and
// whole, and the gateway's share of the time it took.
func (res *loadResult) count(r *rig, msgs []*message) {
	res.sent, res.redelivered = len(msgs), r.tap.redelivered()
	r.model.mu.Lock()
	res.aux = r.model.aux
	r.model.mu.Unlock()
	for _, m := range msgs {
		first, sends, whole := r.tap.reply(m.tok)
		switch {
		case sends == 0:
			res.lost++
			continue
		case sends > 1:
			res.doubled++
		case whole.IsZero():
			res.incomplete++
		default:
			res.answered++
		}
		handed, ok := r.tap.handedAt(m.update)
		if !ok {
			continue
		}
		spent, asked := r.model.of(m.tok)
		res.overhead[m.class] = append(res.overhead[m.class], first.Sub(handed)-spent)
		if m.class != classFlood && !asked.IsZero() {
			res.before = append(res.before, asked.Sub(handed))
		}
	}
}
