package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// Leadership is one replica leading one name, until it is lost or
// released.
type Leadership struct {
	name     string
	key      int64
	conn     *sql.Conn
	interval time.Duration
	clock    clock.Clock
	log      *slog.Logger

	lost chan struct{}
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	why  error
	once sync.Once
	err  error
}

// lead starts watching a leadership just won on conn.
func (e *Elector) lead(name string, key int64, conn *sql.Conn) *Leadership {
	l := &Leadership{name: name, key: key, conn: conn, interval: e.interval, clock: e.clock, log: e.db.log,
		lost: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	go l.watch()
	return l
}

// Name is what is led.
func (l *Leadership) Name() string { return l.name }

// Lost is closed when the leadership is lost: its session ended or a
// check went unanswered for an interval. Whatever the leader does for
// the name must stop then, because another replica may lead next.
func (l *Leadership) Lost() <-chan struct{} { return l.lost }

// Err says why the leadership was lost; nil while it holds.
func (l *Leadership) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.why
}

// Release gives the leadership up: it unlocks the name, so another
// replica leads at its next try, and closes the session. Later calls
// return what the first did.
func (l *Leadership) Release() error {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		select {
		case <-l.lost:
			// A session that stopped answering may never answer again:
			// close it without waiting. Its lock ends with it.
			go discard(l.conn)
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.interval)
		defer cancel()
		var was bool
		if err := l.conn.QueryRowContext(ctx, `SELECT pg_advisory_unlock(?)`, l.key).Scan(&was); err != nil {
			l.err = fmt.Errorf("postgres: release the lead of %s: %w (the lock ends with the session, which is closed)", l.name, err)
		} else if !was {
			l.err = fmt.Errorf("postgres: release the lead of %s: the session did not hold it", l.name)
		}
		discard(l.conn)
	})
	return l.err
}

// watch checks the hold every interval until a check fails or Release.
func (l *Leadership) watch() {
	defer close(l.done)
	for {
		t := l.clock.NewTimer(l.interval)
		select {
		case <-l.stop:
			t.Stop()
			return
		case <-t.C():
		}
		if err := l.check(); err != nil {
			l.mu.Lock()
			l.why = fmt.Errorf("postgres: lost the lead of %s: %w", l.name, err)
			l.mu.Unlock()
			l.log.Warn("postgres: leadership lost", "name", l.name, "err", err)
			close(l.lost)
			return
		}
	}
}

// errUnanswered is a check the server did not answer within an interval.
var errUnanswered = errors.New("the database did not answer the check within an interval")

// check asks the session whether it still holds the lock, giving up
// after an interval: a query on a connection cut off may not return
// until TCP gives up, minutes later.
func (l *Leadership) check() error {
	ctx, cancel := context.WithTimeout(context.Background(), l.interval)
	defer cancel()
	res := make(chan error, 1)
	hi, lo := lockParts(l.key)
	go func() {
		var held bool
		err := l.conn.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 1
  AND classid::bigint = ? AND objid::bigint = ?)`, hi, lo).Scan(&held)
		if err == nil && !held {
			err = errors.New("the session no longer holds the lock")
		}
		res <- err
	}()
	t := l.clock.NewTimer(l.interval)
	defer t.Stop()
	select {
	case err := <-res:
		return err
	case <-t.C():
		return errUnanswered
	}
}
