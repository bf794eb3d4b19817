package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/pgtest"
)

// leadInterval is the election interval of the replicas in these tests.
const leadInterval = 200 * time.Millisecond

// echo answers every turn with its text.
type echo struct{}

func (echo) Turn(_ context.Context, sessionID string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
	sink.Event(agent.Event{Kind: agent.EventText, Text: "echo: " + in.Text})
	sink.Event(agent.Event{Kind: agent.EventDone})
	return &engine.TurnResult{SessionID: "s-" + in.Text, Result: &agent.Result{Stopped: agent.StopDone}}, nil
}

// polls watches every replica's getUpdates calls to the one bot.
type polls struct {
	mu       sync.Mutex
	inflight map[string]int // by replica
	most     int            // most polls in flight at once, all replicas
	first    map[string]time.Time
}

// count is the number of polls in flight, all replicas. p.mu is held.
func (p *polls) count() int {
	n := 0
	for _, v := range p.inflight {
		n += v
	}
	return n
}

func (p *polls) firstPoll(replica string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first[replica]
}

// transport is a replica's way to the Bot API: it counts its polls, and
// once the replica is dead it reaches nothing, as a killed process does.
type transport struct {
	replica string
	polls   *polls
	dead    chan struct{}
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case <-t.dead:
		return nil, fmt.Errorf("%s is dead", t.replica)
	default:
	}
	if strings.HasSuffix(req.URL.Path, "/getUpdates") {
		p := t.polls
		p.mu.Lock()
		p.inflight[t.replica]++
		p.most = max(p.most, p.count())
		if p.first[t.replica].IsZero() {
			p.first[t.replica] = time.Now()
		}
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			p.inflight[t.replica]--
			p.mu.Unlock()
		}()
	}
	ctx, cancel := context.WithCancel(req.Context())
	go func() {
		select {
		case <-t.dead:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := http.DefaultTransport.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	res.Body = body{res.Body, cancel}
	return res, nil
}

// body is a response body whose request ends when it is closed.
type body struct {
	io.ReadCloser
	done context.CancelFunc
}

func (b body) Close() error {
	err := b.ReadCloser.Close()
	b.done()
	return err
}

// mortal is a replica's elector that, once the replica is dead, releases
// nothing: its lock ends only with its database session.
type mortal struct {
	gateway.Elector
	dead chan struct{}
}

type mortalLease struct {
	gateway.Lease
	dead chan struct{}
}

func (m mortal) Lead(ctx context.Context, name string) (gateway.Lease, error) {
	l, err := m.Elector.Lead(ctx, name)
	if err != nil {
		return nil, err
	}
	return mortalLease{l, m.dead}, nil
}

func (l mortalLease) Release() error {
	select {
	case <-l.dead:
		return nil
	default:
		return l.Lease.Release()
	}
}

// gwReplica is one hermes gateway on the shared database.
type gwReplica struct {
	name     string
	elector  *pgdb.Elector
	platform gateway.Platform
	dead     chan struct{}
	stop     func()
}

// Two replicas on one PostgreSQL database serve one Telegram bot: one
// polls at a time, the one Leader names; when it dies (its Bot API
// traffic and its database sessions gone, nothing released) the other
// polls within about an election interval, and every message sent to
// the bot, before and after, is answered exactly once.
func TestGatewayTelegramLeaderFailover(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	seenDB, err := pgdb.Open(t.Context(), dsn, pgdb.Options{MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { seenDB.Close() })
	// The replicas' shared record of events taken, as the gateway's
	// store keeps it in the database.
	if _, err := seenDB.Writer().ExecContext(t.Context(), `CREATE TABLE seen (platform text, id text, PRIMARY KEY (platform, id))`); err != nil {
		t.Fatal(err)
	}
	seen := func(ctx context.Context, platform, id string) (bool, error) {
		res, err := seenDB.Writer().ExecContext(ctx, `INSERT INTO seen (platform, id) VALUES (?, ?) ON CONFLICT DO NOTHING`, platform, id)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		return n == 1, err
	}
	watch := &polls{inflight: map[string]int{}, first: map[string]time.Time{}}
	start := func(name string) *gwReplica {
		db, err := pgdb.Open(t.Context(), dsn, pgdb.Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		r := &gwReplica{name: name, elector: db.Elector(pgdb.ElectOptions{Interval: leadInterval, Holder: name}), dead: make(chan struct{})}
		p, err := telegram.New(telegram.Options{Token: tg.Token, BaseURL: tg.URL, PollTimeout: 5 * time.Second, Logger: slog.New(slog.DiscardHandler),
			Client: &http.Client{Transport: &transport{replica: name, polls: watch, dead: r.dead}}})
		if err != nil {
			t.Fatal(err)
		}
		r.platform = p
		run := gateway.New(gateway.Options{Engine: echo{}, Platforms: []gateway.Platform{p}, Seen: seen,
			Authorize: func(context.Context, string, gateway.User) (bool, string, error) { return true, "", nil },
			Elector:   mortal{leaderElector{r.elector}, r.dead}})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- run.Run(ctx) }()
		r.stop = sync.OnceFunc(func() { cancel(); <-done })
		t.Cleanup(r.stop)
		return r
	}
	a, b := start("replica-a"), start("replica-b")

	say := func(from, to int) {
		for i := from; i < to; i++ {
			tg.UserMessage(telegramtest.Incoming{From: telegramtest.User{ID: int64(100 + i), FirstName: "u"}, Text: fmt.Sprint("message ", i)})
		}
	}
	answered := func(to int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		for i := range to {
			if _, err := tg.WaitSent(ctx, int64(100+i), 1); err != nil {
				t.Fatal(err)
			}
		}
	}
	say(0, 5)
	answered(5)
	holder, ok, err := a.elector.Leader(t.Context(), "telegram")
	if err != nil || !ok {
		t.Fatalf("Leader = %q, %v, %v; want a replica leading telegram", holder, ok, err)
	}
	leader, follower := a, b
	if holder == b.name {
		leader, follower = b, a
	}
	if !watch.firstPoll(follower.name).IsZero() {
		t.Fatalf("%s polled while %s led", follower.name, leader.name)
	}

	// The leader dies: its Bot API traffic ends, its sessions end on the
	// server, and it releases nothing.
	close(leader.dead)
	leader.stop()
	if _, err := seenDB.Writer().ExecContext(t.Context(),
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?`, leader.name); err != nil {
		t.Fatal(err)
	}
	died := time.Now()
	say(5, 10)
	answered(10)
	failover := watch.firstPoll(follower.name).Sub(died)
	t.Logf("failover: %s from the leader's death to the new leader's first getUpdates (election interval %s)", failover, leadInterval)
	if failover > 3*leadInterval+time.Second {
		t.Errorf("failover took %s; want about one election interval (%s)", failover, leadInterval)
	}
	if holder, _, _ := follower.elector.Leader(t.Context(), "telegram"); holder != follower.name {
		t.Errorf("Leader = %q after the failover; want %s", holder, follower.name)
	}
	for i := range 10 {
		sent := tg.Sent(int64(100 + i))
		if len(sent) != 1 || sent[0].Text != fmt.Sprint("echo: message ", i) {
			var texts []string
			for _, m := range sent {
				texts = append(texts, m.Text)
			}
			t.Errorf("chat %d got %q; want one answer to message %d", 100+i, texts, i)
		}
	}
	// hermes gateway status names the replica that polls.
	hooked, err := telegram.New(telegram.Options{Token: tg.Token, Webhook: &telegram.Webhook{URL: "https://bot.example.com/hooks/telegram"}})
	if err != nil {
		t.Fatal(err)
	}
	st := []PlatformStatus{{Platform: "telegram"}, {Platform: "telegram webhook"}}
	markLeaders(t.Context(), follower.elector, []gateway.Platform{follower.platform, hooked}, st)
	if st[0].Leader != follower.name || !strings.Contains(st[0].Detail, "received by replica "+follower.name) || st[1].Leader != "" || st[1].Detail != "" {
		t.Errorf("status %+v; want the polling bot received by %s, nothing said of the webhook", st, follower.name)
	}
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if watch.most != 1 {
		t.Errorf("%d getUpdates polls were in flight at once; want one", watch.most)
	}
}

// On SQLite the database is one machine's: no election, every platform
// received from here.
func TestGatewayElectorOnSQLite(t *testing.T) {
	home := t.TempDir()
	writeConfig(t, home, `model: {base_url: "http://127.0.0.1:1/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
`)
	l, err := config.Load(loadOptions(home))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Config: l})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if e := a.gatewayElector(); e != nil {
		t.Fatalf("the gateway elects on SQLite: %T", e)
	}
}
