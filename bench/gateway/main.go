// Command gateway load-tests hermes serve as a Telegram bot: 1,000
// simulated users write to it over ten minutes of simulated time, and the
// program reports its memory, the messages it lost or answered twice, and
// the time the gateway adds to each message.
//
//	go run ./bench/gateway [-users 1000] [-messages 3000] [-span 10m] [-speed 6] [-reps 1]
//	go run ./bench/gateway -idle [-reps 5]
//	go run ./bench/gateway -idle -platforms all [-reps 5]
//
// It runs the real, stripped binary (hermes serve) against two servers in
// this process: llm/llmtest as the model, which thinks for -think (of
// simulated time) before it streams each reply, and
// gateway/telegram/telegramtest as the Bot API, every Telegram user
// allowed. The users write direct messages, and a share of them write in
// groups, mentioning the bot; each message carries a unique token that
// the model puts at the start of its reply. A person waits for the answer
// and reads it for -read before writing again. During the run some
// updates are handed to hermes a second time, as Telegram does when it is
// not sure an update was taken, and a few chats are put under flood
// control (429 with retry_after once a chat has had one send) for a while.
//
// A message is lost when no message of the bot carries its reply within
// -wait of the last message written; doubled when two do (a second reply,
// not an edit of the first); incomplete when the reply never showed its
// whole text.
//
// The gateway's overhead per message is
//
//	(when the reply's first sendMessage reached the Bot API server
//	 − when the update was handed to hermes's getUpdates poll)
//	− the time the model spent on the requests that carried the message
//
// measured in this process by a tap in front of the Bot API server: an
// update is handed when the poll's answer is about to be written to
// hermes, and a sendMessage is timed as its request arrives. The model's
// time runs from when llmtest has read and decoded a request to when it
// starts streaming the answer, so it is the think time plus however late
// the sleep wakes on a busy machine. Everything else counts as the
// gateway's: reading the poll's answer, deduplicating the update in
// state.db, authorizing, resolving the session and loading its history,
// building the prompt, the store's writes of the user's message, the
// request to the model and the parsing of its first streamed bytes,
// rendering, and the outbox, whose pacing of about one send a second per
// chat a user would feel when replies to one chat come faster than that
// (groups under a compressed timeline do), as are the waits flood control
// imposes (reported on their own row). llmtest's own encoding of the
// stream and both servers' HTTP handling fall on the gateway's side too,
// as do the scheduling delays of sharing two cores with this program.
// The row "of which before the model was asked" is the part up to the
// arrival of the model's first request (the store's work and the
// request); the rest is the stream, rendering and the outbox.
//
// Those times are wall times, and on a shared machine every wait for a
// core or a disk lands in them. serve's CPU per message (its user and
// system time from the first message to the last reply, divided by the
// messages, typing indicators, polls and edits included) is the figure
// that does not depend on what else the machine is doing.
//
// Memory is VmRSS and RssAnon from /proc/PID/status: sampled every second
// while messages are in flight (median and max), and once after all
// replies are in and -idle-after of quiet, when idle chats should have
// been let go. -idle measures serve with Telegram connected and nothing
// happening instead: memory after -settle, the median of -reps runs.
// With -platforms (all, or a list such as telegram,slack,matrix) it is
// serve connected to each of them at once, every platform's fake server
// in this process (Matrix a real dendrite, email a real Dovecot and
// Mailpit, skipped when not installed), measured once every fake has
// seen serve connect, next to the same with Telegram alone.
//
// Linux only. GODEBUG=gctrace=1 and the like reach serve with -env; its
// log goes to -log.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hermes-go/hermes/bench/internal/ship"
)

func main() {
	var o loadOptions
	flag.IntVar(&o.users, "users", 1000, "simulated Telegram users")
	flag.IntVar(&o.messages, "messages", 3000, "messages in all (at least one per user)")
	flag.DurationVar(&o.span, "span", 10*time.Minute, "simulated time over which the messages are spread")
	flag.Float64Var(&o.speed, "speed", 6, "how much faster than real time the timeline runs (1 is real time)")
	flag.DurationVar(&o.think, "think", 2*time.Second, "the model's simulated time per request before it streams")
	flag.DurationVar(&o.read, "read", 10*time.Second, "simulated time a person takes after an answer before writing again")
	flag.Float64Var(&o.groupShare, "groups", 0.1, "share of the users who write in groups")
	flag.IntVar(&o.groupSize, "group-size", 5, "users per group")
	flag.IntVar(&o.redeliver, "redeliver", 20, "updates handed to hermes a second time")
	flag.IntVar(&o.floodChats, "flood-chats", 10, "direct-message chats (and one group) put under flood control")
	flag.DurationVar(&o.floodAt, "flood-at", 4*time.Minute, "simulated time the flood window opens")
	flag.DurationVar(&o.floodFor, "flood-for", time.Minute, "simulated length of the flood window")
	flag.DurationVar(&o.retryAfter, "retry-after", 3*time.Second, "the retry_after flood control names (wall time)")
	flag.DurationVar(&o.wait, "wait", 60*time.Second, "how long (wall) a reply may take before its message counts as lost")
	flag.DurationVar(&o.idle, "idle-after", 30*time.Second, "quiet (wall) after the last reply before memory is read again")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of who writes when")
	idle := flag.Bool("idle", false, "measure an idle serve with Telegram connected instead")
	platforms := flag.String("platforms", "", "with -idle: all, or a comma-separated list of platforms to connect at once")
	settle := flag.Duration("settle", 5*time.Second, "with -idle: how long serve idles before it is measured")
	reps := flag.Int("reps", 1, "runs; with -idle the median is reported, else each run is")
	bin := flag.String("bin", "", "a hermes binary to measure (default: build ./cmd/hermes stripped)")
	logTo := flag.String("log", "", "file for serve's log (stderr), for GODEBUG=gctrace=1")
	var env ship.Env
	flag.Var(&env, "env", "`KEY=VALUE` added to serve's environment (repeatable)")
	flag.Parse()
	o.env = env
	if err := run(o, *idle, *platforms, *settle, *reps, *bin, *logTo); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

func run(o loadOptions, idle bool, platforms string, settle time.Duration, reps int, bin, logTo string) error {
	if o.users < 1 || o.speed <= 0 || reps < 1 {
		return fmt.Errorf("-users %d, -speed %g, -reps %d: each must be positive", o.users, o.speed, reps)
	}
	var names []string
	if platforms != "" {
		if !idle {
			return fmt.Errorf("-platforms %q: it goes with -idle", platforms)
		}
		var err error
		if names, err = parsePlatforms(platforms); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "hermes-bench-gateway-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		bin = dir + "/hermes"
		if err := ship.Build(bin, "./cmd/hermes", ""); err != nil {
			return err
		}
	}
	o.bin, o.dir = bin, dir
	if logTo != "" {
		f, err := os.Create(logTo)
		if err != nil {
			return err
		}
		defer f.Close()
		o.log = f
	}
	if idle && names != nil {
		return runIdleFleet(os.Stdout, o, names, settle, reps)
	}
	if idle {
		return runIdle(o, settle, reps)
	}
	for i := range reps {
		res, err := runLoad(o)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		res.print(os.Stdout, o)
	}
	return nil
}

// runIdle measures serve connected to Telegram with nothing to do.
func runIdle(o loadOptions, settle time.Duration, reps int) error {
	var rss, anon []float64
	for range reps {
		a, b, err := idleOnce(o, settle)
		if err != nil {
			return err
		}
		rss, anon = append(rss, a), append(anon, b)
	}
	fmt.Printf("%-44s %10s %10s\n", "hermes serve, Telegram connected, idle", "VmRSS MB", "anon MB")
	fmt.Printf("%-44s %10.1f %10.1f\n", fmt.Sprintf("after %s, median of %d", settle, reps), median(rss), median(anon))
	fmt.Printf("each run: VmRSS %s; anon %s\n", floats(rss), floats(anon))
	return nil
}

func idleOnce(o loadOptions, settle time.Duration) (rss, anon float64, err error) {
	r, err := startRig(rigOptions{bin: o.bin, dir: o.dir, env: o.env, log: o.log})
	if err != nil {
		return 0, 0, err
	}
	defer r.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.polling(ctx); err != nil {
		return 0, 0, err
	}
	time.Sleep(settle)
	return r.memory()
}

func floats(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.1f", x))
	}
	return strings.Join(parts, " ")
}
