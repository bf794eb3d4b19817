package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
	"github.com/hermes-go/hermes/internal/gateway/email/mailtest"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// failoverMessages is how many messages each failover test sends: the
// first five before the leader is killed, the rest after.
const failoverMessages = 10

// leaderPlatform is one platform that allows one consumer, as the
// failover test drives it.
type leaderPlatform struct {
	name string
	// env is more of .env; gateway is the gateway section of replica's
	// config, the platform reached through a front counting in watch.
	env     string
	gateway func(replica string) string
	// say sends message i to the bot; answers counts the bot's answers
	// to it so far.
	say     func(i int)
	answers func(i int) int
	// wait waits until cond holds, or fails the test after 30 s.
	wait func(t *testing.T, what string, cond func() bool)
	// ready waits, after the nth connection (from 1), until events sent
	// from now on reach it; nil when the platform keeps what was sent
	// meanwhile (messages are then sent at once after the kill).
	ready func(t *testing.T, n int)
	// resumes says the replica taking over resumes the dead one's
	// session, which the platform replays what was sent meanwhile to:
	// messages are sent at once after the kill, though ready is set.
	resumes bool
}

// failover runs two hermes serve replicas on one PostgreSQL database
// receiving from p, which they reach through fronts counting in watch:
// only one holds the platform's connection at a time; when it is killed
// with SIGKILL the other connects, and every message, sent before the
// kill and after, is answered exactly once. It logs the failover times.
func failover(t *testing.T, p leaderPlatform, watch *connWatch, model *llmtest.Server) {
	dsn := pgtest.NewDatabase(t)
	replica := func(name string) *home {
		h := newHome(t)
		h.write(".env", "DATABASE_URL="+dsn+"\n"+p.env)
		h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: "${DATABASE_URL}"}
gateway:
%s`, model.URL(), p.gateway(name)))
		return h
	}
	say := func(from, to int) {
		for i := from; i < to; i++ {
			p.say(i)
		}
	}
	answered := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			p.wait(t, fmt.Sprintf("an answer to message %d", i), func() bool { return p.answers(i) > 0 })
		}
	}

	ha, hb := replica("a"), replica("b")
	a := startReplica(t, ha)
	watch.waitFirst(t, "a")
	if p.ready != nil {
		p.ready(t, 1)
	}
	say(0, 1)
	answered(0, 1)
	b := startReplica(t, hb)
	say(1, 5)
	answered(1, 5)
	if _, ok := watch.firstConn("b"); ok {
		t.Fatalf("replica b connected to %s while a led", p.name)
	}
	leads(t, hb, p.name, a.Process.Pid)

	if err := a.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	atOnce := p.ready == nil || p.resumes
	if atOnce {
		say(5, failoverMessages)
	}
	connected := watch.waitFirst(t, "b")
	if !atOnce {
		p.ready(t, 2)
		say(5, failoverMessages)
	}
	answered(5, 6)
	first := time.Since(killed)
	answered(6, failoverMessages)
	took := connected.Sub(killed)
	t.Logf("%s failover: %s from SIGKILL of the leader to the other replica's first connection, %s to the first answer after the kill (election interval 2s)",
		p.name, took.Round(time.Millisecond), first.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("failover took %s; want about one election interval (2 s)", took)
	}
	leads(t, hb, p.name, b.Process.Pid)

	for i := range failoverMessages {
		if n := p.answers(i); n != 1 {
			t.Errorf("message %d was answered %d times; want once", i, n)
		}
	}
	if n := watch.mostHolders(); n != 1 {
		t.Errorf("%d replicas held a connection to %s at once; want one", n, p.name)
	}
}

// echo answers every message with its text, so each answer names the
// message it answers.
func echo(t *testing.T) *llmtest.Server {
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "echo: " + r.LastUserText()} })
	return srv
}

// waitOn is a leaderPlatform's wait on a test server's Wait.
func waitOn(wait func(context.Context, func() bool) error) func(*testing.T, string, func() bool) {
	return func(t *testing.T, what string, cond func() bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := wait(ctx, cond); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// countHolding counts the messages whose text holds want.
func countHolding[M any](msgs []M, text func(M) string, want string) int {
	n := 0
	for _, m := range msgs {
		n += strings.Count(text(m), want)
	}
	return n
}

// Discord's gateway, held by one replica at a time. Discord replays
// the events of a session only to a Resume of that session: the replica
// taking over resumes the session the dead one saved in the database,
// so the messages sent between the kill and its connection are replayed
// to it and answered.
func TestGatewayDiscordReplicasFailover(t *testing.T) {
	dc := discordtest.New(discordtest.Options{})
	t.Cleanup(dc.Close)
	watch := newConnWatch()
	user := func(i int) discordtest.User {
		return discordtest.User{ID: fmt.Sprint(4201 + i), Username: fmt.Sprint("u", i)}
	}
	var allow []string
	for i := range failoverMessages {
		allow = append(allow, fmt.Sprintf("%q", user(i).ID))
	}
	p := leaderPlatform{
		name: "discord",
		gateway: func(replica string) string {
			return fmt.Sprintf("  discord: {token: %q, base_url: %q, allow: [%s]}\n",
				dc.Token, wsFront(t, watch, replica, strings.TrimSuffix(dc.URL, "/api/v10"))+"/api/v10", strings.Join(allow, ", "))
		},
		say: func(i int) { dc.UserMessage(discordtest.Incoming{From: user(i), Content: fmt.Sprint("message ", i)}) },
		answers: func(i int) int {
			return countHolding(dc.Sent(discordtest.DMChannel(user(i))), func(m discordtest.Message) string { return m.Content },
				fmt.Sprint("echo: message ", i))
		},
		wait: waitOn(dc.Wait),
	}
	p.ready = func(t *testing.T, n int) {
		p.wait(t, fmt.Sprintf("READY on connection %d", n), func() bool { return dc.Identifies() >= n && dc.Live() })
	}
	p.resumes = true
	failover(t, p, watch, echo(t))
	if len(dc.Resumes()) == 0 {
		t.Errorf("the replica taking over identified afresh instead of resuming the dead one's session")
	}
}

// Slack in Socket Mode, held by one replica at a time; the envelopes
// sent while no replica is connected are sent again on the next
// connection, as Slack does, so messages are sent at once after the
// kill.
func TestGatewaySlackReplicasFailover(t *testing.T) {
	sl := slacktest.New(slacktest.Options{})
	t.Cleanup(sl.Close)
	watch := newConnWatch()
	user := func(i int) (id, dm string) { return fmt.Sprint("U", 101+i), fmt.Sprint("D", 101+i) }
	var allow []string
	for i := range failoverMessages {
		id, _ := user(i)
		allow = append(allow, fmt.Sprintf("%q", id))
	}
	p := leaderPlatform{
		name: "slack",
		gateway: func(replica string) string {
			return fmt.Sprintf("  slack: {bot_token: %q, app_token: %q, base_url: %q, allow: [%s]}\n",
				sl.BotToken, sl.AppToken, wsFront(t, watch, replica, strings.TrimSuffix(sl.URL, "/api"))+"/api", strings.Join(allow, ", "))
		},
		say: func(i int) {
			id, dm := user(i)
			sl.Message(slacktest.Incoming{User: id, Channel: dm, Text: fmt.Sprint("message ", i)})
		},
		answers: func(i int) int {
			_, dm := user(i)
			return countHolding(sl.Sent(dm), func(m slacktest.Message) string { return m.Text }, fmt.Sprint("echo: message ", i))
		},
		wait: waitOn(sl.Wait),
	}
	failover(t, p, watch, echo(t))
	if pending := sl.Pending(); len(pending) != 0 {
		t.Errorf("envelopes never acknowledged: %v", pending)
	}
}

// Email over IMAP, read by one replica at a time (a front counts the
// IMAP sessions); mail waits in the mailbox, so messages are sent at
// once after the kill.
func TestGatewayEmailReplicasFailover(t *testing.T) {
	s := mailtest.Start(t)
	watch := newConnWatch()
	// Mailpit tells of each mail once: wait keeps what it was told.
	var replies []string
	p := leaderPlatform{
		name: "email",
		env:  "EMAIL_PASSWORD=" + s.Password + "\n",
		gateway: func(replica string) string {
			return emailGateway(s, tcpFront(t, watch, replica, s.IMAPAddr))
		},
		say: func(i int) {
			s.Deliver(t, "INBOX", fmt.Sprintf("From: Ana <ana@example.com>\nTo: %s\nSubject: m%d\nMessage-ID: <m%d@example.com>\n\nmessage %d.\n", s.Address, i, i, i))
		},
		answers: func(i int) int {
			return countHolding(replies, func(b string) string { return b }, fmt.Sprintf("message %d.", i))
		},
		wait: func(t *testing.T, what string, cond func() bool) {
			t.Helper()
			for !cond() {
				replies = append(replies, mailBody(t, s.Next(t)))
			}
		},
	}
	failover(t, p, watch, echo(t))
	if n := s.Count(t); n != failoverMessages {
		t.Errorf("%d mails sent; want %d, one answer to each", n, failoverMessages)
	}
}
