package pgdb

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/pgtest"
)

// testInterval is the election interval of these tests.
const testInterval = 100 * time.Millisecond

// replica opens dsn as one replica named holder would and returns its
// elector.
func replica(t *testing.T, dsn, holder string) *Elector {
	t.Helper()
	db, err := Open(t.Context(), dsn, Options{MaxConns: 4})
	if err != nil {
		t.Fatalf("open %s: %v", holder, err)
	}
	t.Cleanup(func() { db.Close() })
	return db.Elector(ElectOptions{Interval: testInterval, Holder: holder})
}

// lead leads name or fails the test.
func lead(t *testing.T, e *Elector, name string) *Leadership {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	l, err := e.Lead(ctx, name)
	if err != nil {
		t.Fatalf("%s: Lead(%q): %v", e.Holder(), name, err)
	}
	t.Cleanup(func() { l.Release() })
	return l
}

// leadAsync starts leading name in the background; the channel gets the
// leadership and the time it was won.
func leadAsync(t *testing.T, e *Elector, name string) <-chan *Leadership {
	t.Helper()
	won := make(chan *Leadership, 1)
	go func() {
		l, err := e.Lead(t.Context(), name)
		if err != nil {
			return
		}
		won <- l
	}()
	return won
}

// leader says who leads name, as `hermes doctor` would ask.
func leader(t *testing.T, e *Elector, name string) string {
	t.Helper()
	holder, ok, err := e.Leader(t.Context(), name)
	if err != nil {
		t.Fatalf("Leader(%q): %v", name, err)
	}
	if !ok {
		return ""
	}
	return holder
}

// waitWon waits for a background Lead, failing after limit.
func waitWon(t *testing.T, won <-chan *Leadership, limit time.Duration) *Leadership {
	t.Helper()
	select {
	case l := <-won:
		t.Cleanup(func() { l.Release() })
		return l
	case <-time.After(limit):
		t.Fatalf("no leader within %s", limit)
		return nil
	}
}

// TestLeadOneAtATime: of two replicas on one database one leads a name,
// the other waits, and each name has a leader of its own.
func TestLeadOneAtATime(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a, b := replica(t, dsn, "replica-a"), replica(t, dsn, "replica-b")
	if got := leader(t, a, "telegram"); got != "" {
		t.Fatalf("before any election, Leader = %q; want none", got)
	}
	lead(t, a, "telegram")
	ctx, cancel := context.WithTimeout(t.Context(), 5*testInterval)
	defer cancel()
	if l, err := b.Lead(ctx, "telegram"); err == nil {
		l.Release()
		t.Fatal("the second replica leads telegram while the first does")
	} else if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "telegram") {
		t.Fatalf("Lead after its context ended: %v; want the deadline, naming telegram", err)
	}
	if got := leader(t, b, "telegram"); got != "replica-a" {
		t.Fatalf("Leader(telegram) = %q; want replica-a", got)
	}
	lead(t, b, "discord")
	if got := leader(t, a, "discord"); got != "replica-b" {
		t.Fatalf("Leader(discord) = %q; want replica-b", got)
	}
}

// TestLeadReleaseHandsOver: a released name goes to the replica waiting
// for it within an interval, and the old leader's Lost stays open.
func TestLeadReleaseHandsOver(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a, b := replica(t, dsn, "replica-a"), replica(t, dsn, "replica-b")
	la := lead(t, a, "telegram")
	won := leadAsync(t, b, "telegram")
	if err := la.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	start := time.Now()
	waitWon(t, won, 10*testInterval)
	t.Logf("handover after Release: %s (interval %s)", time.Since(start), testInterval)
	select {
	case <-la.Lost():
		t.Fatal("Lost closed on a leadership released on purpose")
	default:
	}
	if got := leader(t, a, "telegram"); got != "replica-b" {
		t.Fatalf("Leader = %q after the handover; want replica-b", got)
	}
}

// TestLeadFailover: when the leader's session ends without a release —
// its process killed, its connection closed, or ended by the server —
// the other replica leads within about an interval, and the old leader,
// where it is still running, sees Lost.
func TestLeadFailover(t *testing.T) {
	cases := map[string]func(t *testing.T, p *proxy, admin *Elector){
		"connection closed": func(t *testing.T, p *proxy, _ *Elector) { p.kill() },
		"session terminated": func(t *testing.T, _ *proxy, admin *Elector) {
			if _, err := admin.db.pool.ExecContext(t.Context(),
				`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'replica-a'`); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, cut := range cases {
		t.Run(name, func(t *testing.T) {
			dsn := pgtest.NewDatabase(t)
			p, viaProxy := newProxy(t, dsn)
			a, b := replica(t, viaProxy, "replica-a"), replica(t, dsn, "replica-b")
			la := lead(t, a, "telegram")
			won := leadAsync(t, b, "telegram")
			cut(t, p, b)
			start := time.Now()
			waitWon(t, won, 10*testInterval)
			t.Logf("failover: %s (interval %s)", time.Since(start), testInterval)
			select {
			case <-la.Lost():
			case <-time.After(10 * testInterval):
				t.Fatal("the old leader never saw that it lost")
			}
			if la.Err() == nil || !strings.Contains(la.Err().Error(), "telegram") {
				t.Errorf("Err = %v; want why the lead of telegram was lost", la.Err())
			}
		})
	}
}

// TestLeadPartitioned: a leader cut off from the database, its
// connection open but silent, sees Lost before the server frees its
// lock, and another replica leads after that.
func TestLeadPartitioned(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	p, viaProxy := newProxy(t, dsn)
	a, b := replica(t, viaProxy, "replica-a"), replica(t, dsn, "replica-b")
	la := lead(t, a, "telegram")
	won := leadAsync(t, b, "telegram")
	p.freeze()
	start := time.Now()
	var lost time.Duration
	select {
	case <-la.Lost():
		lost = time.Since(start)
	case <-won:
		t.Fatal("another replica led before the cut-off leader saw it lost")
	case <-time.After(20 * testInterval):
		t.Fatal("the cut-off leader never saw that it lost")
	}
	waitWon(t, won, 20*testInterval)
	t.Logf("partitioned leader: lost after %s, new leader after %s (interval %s)", lost, time.Since(start), testInterval)
	if !strings.Contains(la.Err().Error(), "did not answer") {
		t.Errorf("Err = %v; want the unanswered check", la.Err())
	}
	done := make(chan error, 1)
	go func() { done <- la.Release() }()
	select {
	case <-done:
	case <-time.After(5 * testInterval):
		t.Fatal("Release of a cut-off leadership hangs")
	}
}

// TestLeadNeverTwo: replicas contending for one name over and over
// never lead it at once, and whoever leads is the one Leader names.
// A leader whose check comes late on a loaded machine may lose its
// session to the idle timeout; it sees Lost then, and its term ends.
func TestLeadNeverTwo(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	const replicas, rounds, interval = 3, 3, 250 * time.Millisecond
	var leading, most, terms atomic.Int32
	var wg sync.WaitGroup
	for i := range replicas {
		db, err := Open(t.Context(), dsn, Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		e := db.Elector(ElectOptions{Interval: interval, Holder: "replica-" + string(rune('a'+i))})
		wg.Go(func() {
			for range rounds {
				l, err := e.Lead(t.Context(), "telegram")
				if err != nil {
					t.Error(err)
					return
				}
				if n := leading.Add(1); n > most.Load() {
					most.Store(n)
				}
				terms.Add(1)
				for range 3 {
					if got := leader(t, e, "telegram"); got != e.Holder() {
						select {
						case <-l.Lost():
						case <-time.After(2 * interval):
							t.Errorf("%s leads but Leader says %q", e.Holder(), got)
						}
						break
					}
				}
				leading.Add(-1)
				l.Release()
			}
		})
	}
	wg.Wait()
	if most.Load() != 1 || terms.Load() != replicas*rounds {
		t.Fatalf("%d terms with at most %d leaders at once; want %d terms, one leader at a time", terms.Load(), most.Load(), replicas*rounds)
	}
}

// TestLeadBadName: an empty name is refused with what is wanted.
func TestLeadBadName(t *testing.T) {
	e := (&DB{}).Elector(ElectOptions{})
	if _, err := e.Lead(t.Context(), ""); err == nil || !strings.Contains(err.Error(), "name is empty") {
		t.Fatalf("Lead(\"\") = %v; want the empty name refused", err)
	}
	if e.Holder() == "" || len(holderName(strings.Repeat("é", 50))) > 63 || holderName("a\nb") != "a?b" {
		t.Fatal("holder names are not kept to what application_name holds")
	}
}
