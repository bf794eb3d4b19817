// Command api load-tests the OpenAI-compatible API of hermes serve: many
// streaming chat completions at once against llm/llmtest as the model,
// and reports the time the API adds to each, serve's memory, and what
// the clients got back below and above api.max_concurrent_runs.
//
//	go run ./bench/api [-conc 200] [-rounds 5] [-think 50ms] [-reps 3]
//
// It runs the real, stripped binary (hermes serve, the API on with a key,
// nothing else configured) against llmtest in this process, which thinks
// for -think before it streams each reply. Each request's prompt carries
// a unique token (req-ROUND-USER); the model notes how long it took for
// the request carrying it, and starts its reply with it, so the client
// checks that it got its own answer.
//
// Phase A, under the limit: api.max_concurrent_runs is -limit-under
// (256), and -conc clients each send a streaming chat completion at the
// same moment, a round after another, -rounds counted after one round to
// warm up (the client opens its connections, serve its database). Every
// -stateful-th client keeps a stored session: X-Hermes-Session-Id: new
// in the first round, the id it got back after; the others are
// stateless. Every request must come back as a whole 200 stream (a chunk
// with a finish_reason, then data: [DONE], carrying its token): anything
// else is an error, and there must be none.
//
// The API's overhead per request is
//
//	(time from sending the request to the first chunk with content)
//	− (the model's time to first token for that request)
//
// where the model's time runs from when llmtest has read and decoded
// hermes's request to when it starts writing the answer: the think time
// plus however late the sleep wakes. Everything else is counted as
// hermes's: the HTTP handling, authorization, creating or loading the
// session and storing the user's message, building the prompt, the
// request to the model, llmtest's reading of it and writing of the first
// chunks, parsing them and sending the first delta on. The scheduling
// delays of 200 turns and this program sharing the machine's cores land
// there too, so serve's CPU per request is printed as well: it does not
// depend on what else the machine does. Time to first byte is the time
// to the response's first byte: serve sends the headers and the role
// chunk once the turn's session is known, before the model is asked.
//
// Phase B, over the limit: api.max_concurrent_runs is -limit-over (8,
// the default) and the same -conc clients send at once. Beyond the limit
// the answer must be 429, every 200 must be a whole stream, and there
// must be no 5xx.
//
// Memory is VmRSS, RssAnon and RssFile from /proc/PID/status, sampled
// every 200 ms while a phase's requests are in flight (median and max)
// and once -settle after its last answer. Phase idle starts serve with
// the API on and nothing else (no gateway platform, the default
// scheduler with no jobs), and again with the API off, and reads its
// memory after -settle: the median of -reps starts. Before each start
// the binary is dropped from the page cache, so that serve reads it from
// disk as after a reboot: RssFile, the binary's pages serve has mapped,
// is up to 3 MB higher when the linker has just written the file, for
// the same code run (see evict).
//
// Linux only. GODEBUG settings and the like reach serve with -env; its
// log goes to -log.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/bench/internal/proc"
	"github.com/hermes-go/hermes/bench/internal/ship"
)

// options are the flags.
type options struct {
	loadOptions
	think               time.Duration
	limitUnder, limitOv int
	reps                int
	skip                string
	bin                 string
	env                 ship.Env
	log                 io.Writer
}

func main() {
	var o options
	flag.IntVar(&o.conc, "conc", 200, "streaming chat completions sent at once")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds counted, after one to warm up")
	flag.IntVar(&o.stateful, "stateful", 4, "every n-th client keeps a stored session (0: none)")
	flag.DurationVar(&o.think, "think", 50*time.Millisecond, "the model's time to first token")
	flag.IntVar(&o.limitUnder, "limit-under", 256, "api.max_concurrent_runs in phase A")
	flag.IntVar(&o.limitOv, "limit-over", 8, "api.max_concurrent_runs in phase B")
	flag.DurationVar(&o.settle, "settle", 5*time.Second, "quiet before memory is read after a phase, and at idle")
	flag.IntVar(&o.reps, "reps", 3, "starts of an idle serve; the median is reported")
	flag.StringVar(&o.skip, "skip", "", "phases to leave out: any of a, b, idle")
	flag.StringVar(&o.bin, "bin", "", "a hermes binary to measure (default: build ./cmd/hermes stripped)")
	logTo := flag.String("log", "", "file for serve's log (stderr)")
	flag.Var(&o.env, "env", "`KEY=VALUE` added to serve's environment (repeatable)")
	flag.Parse()
	if *logTo != "" {
		f, err := os.Create(*logTo)
		if err != nil {
			fmt.Fprintln(os.Stderr, "api:", err)
			os.Exit(1)
		}
		defer f.Close()
		o.log = f
	}
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, o options) error {
	if o.conc < 1 || o.rounds < 1 || o.reps < 1 || o.limitUnder < 1 || o.limitOv < 1 {
		return fmt.Errorf("-conc %d, -rounds %d, -reps %d, -limit-under %d, -limit-over %d: each must be 1 or more",
			o.conc, o.rounds, o.reps, o.limitUnder, o.limitOv)
	}
	dir, err := os.MkdirTemp("", "hermes-bench-api-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.bin == "" {
		o.bin = dir + "/hermes"
		if err := ship.Build(o.bin, "./cmd/hermes", ""); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "hermes serve's API: %d streaming chat completions at once, %d rounds, every %d-th stateful, model's time to first token %s\n",
		o.conc, o.rounds, o.stateful, o.think)
	if !skipped(o.skip, "a") {
		if err := phaseA(w, o, dir); err != nil {
			return fmt.Errorf("phase A: %w", err)
		}
	}
	if !skipped(o.skip, "b") {
		if err := phaseB(w, o, dir); err != nil {
			return fmt.Errorf("phase B: %w", err)
		}
	}
	if !skipped(o.skip, "idle") {
		if err := phaseIdle(w, o, dir); err != nil {
			return fmt.Errorf("phase idle: %w", err)
		}
	}
	return nil
}

// start starts the model and serve with the API limited to limit runs.
func start(o options, dir string, api bool, limit int) (*model, *serve, error) {
	m := startModel(o.think)
	s, err := startServe(serveOptions{bin: o.bin, dir: dir, modelURL: m.srv.URL(), api: api, maxRuns: limit, env: o.env, log: o.log})
	if err != nil {
		m.srv.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// load starts the model and serve with the API limited to limit runs,
// runs a phase of load against them and stops them.
func load(o options, dir string, limit int) (*phase, *model, error) {
	m, s, err := start(o, dir, true, limit)
	if err != nil {
		return nil, nil, err
	}
	defer m.srv.Close()
	defer s.close()
	p, err := runPhase(s, m, o.loadOptions)
	return p, m, err
}

func phaseA(w io.Writer, o options, dir string) error {
	p, m, err := load(o, dir, o.limitUnder)
	if err != nil {
		return err
	}
	u := countUnder(p, m)
	fmt.Fprintf(w, "\nphase A: under the limit (api.max_concurrent_runs %d), %d requests in %s\n", o.limitUnder, u.n, p.wall.Round(time.Millisecond))
	fmt.Fprintf(w, "%-46s %7d\n", "errors (anything but a whole 200 stream)", u.errors)
	if u.firstErr != nil {
		fmt.Fprintf(w, "%-46s %v\n", "  the first", u.firstErr)
	}
	fmt.Fprintf(w, "%-46s %7d\n", "whole answers without content, or unmatched", u.missing+u.unmatched)
	fmt.Fprintf(w, "%-46s %7d\n", "model requests that were not a turn's own", p.aux)
	fmt.Fprintf(w, "\n%-46s %7s %8s %8s %8s\n", "ms", "n", "p50", "p99", "max")
	row(w, "client: time to first byte", u.firstByte)
	row(w, "client: time to first content", u.text)
	row(w, "model: time to first token", u.model)
	row(w, "API overhead (first content - model), all", append(append([]time.Duration(nil), u.overhead[0]...), u.overhead[1]...))
	row(w, "  stateless", u.overhead[0])
	row(w, "  stateful (X-Hermes-Session-Id)", u.overhead[1])
	fmt.Fprintf(w, "%-46s %7.2f\n", "serve's CPU per request, ms", float64(p.cpu)/float64(time.Millisecond)/float64(max(u.n, 1)))
	fmt.Fprintln(w)
	memRows(w, p, o.settle)
	return nil
}

func phaseB(w io.Writer, o options, dir string) error {
	p, _, err := load(o, dir, o.limitOv)
	if err != nil {
		return err
	}
	v := countOver(p)
	fmt.Fprintf(w, "\nphase B: over the limit (api.max_concurrent_runs %d), %d requests in %s\n", o.limitOv, len(p.outcomes), p.wall.Round(time.Millisecond))
	for _, c := range []struct {
		name string
		n    int
	}{{"200, whole stream", v.whole}, {"200, stream broken", v.broken}, {"429", v.limited},
		{"other 4xx", v.other4xx}, {"5xx", v.server}, {"no answer (transport error)", v.failed}} {
		fmt.Fprintf(w, "%-46s %7d\n", c.name, c.n)
	}
	fmt.Fprintln(w)
	memRows(w, p, o.settle)
	return nil
}

func phaseIdle(w io.Writer, o options, dir string) error {
	fmt.Fprintf(w, "\nphase idle: hermes serve with nothing to do, after %s, median of %d starts\n", o.settle, o.reps)
	fmt.Fprintf(w, "%-46s %10s %10s %10s\n", "", "VmRSS MB", "anon MB", "file MB")
	for _, api := range []bool{true, false} {
		var ms []proc.Memory
		for range o.reps {
			if err := evict(o.bin); err != nil {
				return err
			}
			m, s, err := start(o, dir, api, o.limitOv)
			if err != nil {
				return err
			}
			time.Sleep(o.settle)
			mem, err := s.memory()
			s.close()
			m.srv.Close()
			if err != nil {
				return err
			}
			ms = append(ms, mem)
		}
		name := "API on (budget: VmRSS 25 MB)"
		if !api {
			name = "API off"
		}
		memLine(w, name, ms)
	}
	return nil
}

// skipped reports whether phase is named in the -skip list.
func skipped(list, phase string) bool {
	return slices.Contains(strings.Split(list, ","), phase)
}
