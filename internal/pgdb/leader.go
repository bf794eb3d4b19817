package pgdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// DefaultLeadInterval is how often a replica that does not lead tries
// to, and how often a leader checks that it still does.
const DefaultLeadInterval = 2 * time.Second

// ElectOptions tune an Elector. The zero value is ready to use.
type ElectOptions struct {
	// Interval is how often Lead tries to take a name, and how often a
	// leader checks its hold; zero means DefaultLeadInterval. Failover
	// after a leader dies takes up to one interval; after it is cut off
	// from the database, up to three (see Lead).
	Interval time.Duration
	// Holder names this replica in PostgreSQL's pg_stat_activity
	// (application_name), where Leader reads it; "" means host/pid.
	Holder string
	// Clock times the tries and the checks; nil means the wall clock.
	// The server times the session's idle timeout on its own clock, so
	// a leader on a clock that stands still loses its lock unawares
	// after three intervals: only a test that leads no longer than
	// that may give a fake.
	Clock clock.Clock
}

// Elector elects, per name, one leader among the replicas sharing a
// database, for work only one of them may do at a time (polling a
// Telegram bot, holding Discord's gateway connection). It holds a
// PostgreSQL session-level advisory lock for each name it leads: the
// server frees the lock when the session ends, so a leader that dies,
// however it dies, hands over without anyone cleaning up after it.
type Elector struct {
	db       *DB
	interval time.Duration
	holder   string
	clock    clock.Clock
}

// Elector returns an Elector over db.
func (db *DB) Elector(opt ElectOptions) *Elector {
	e := &Elector{db: db, interval: opt.Interval, holder: holderName(opt.Holder), clock: clock.OrReal(opt.Clock)}
	if e.interval <= 0 {
		e.interval = DefaultLeadInterval
	}
	return e
}

// Holder is the name this replica leads under.
func (e *Elector) Holder() string { return e.holder }

// LeaderKey is the advisory lock key of name: a 64-bit hash of
// "hermes:leader:"+name.
func LeaderKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("hermes:leader:" + name))
	return int64(h.Sum64())
}

// Lead waits until this replica leads name, trying every interval, and
// returns the leadership; it fails only when ctx ends or name is empty.
// A database that cannot be reached is tried again at the next interval.
//
// From its first try until Release, an election holds one of the pool's
// connections, so storage.max_conns must leave one for each name led
// beside what the stores use; and the lock is the session's, so the
// connection must reach PostgreSQL itself or a pooler in session mode,
// never one that pools transactions.
//
// A leader that dies hands over within an interval: its connection
// closes, the server frees the lock, and a waiting replica takes it at
// its next try. A leader cut off instead (a network partition, a frozen
// process) cannot be told; so its session's idle_session_timeout is
// three intervals, and it checks its hold every interval, an answer
// late by an interval counting as lost: it reports Lost within two
// intervals of its last answered check, and the server ends its
// session, freeing the lock for another replica, only after three.
func (e *Elector) Lead(ctx context.Context, name string) (*Leadership, error) {
	if name == "" {
		return nil, errors.New("postgres: lead: the name is empty; want what is led, such as telegram")
	}
	key := LeaderKey(name)
	var conn *sql.Conn
	var last string
	for {
		var won bool
		var err error
		if conn == nil {
			conn, err = e.session(ctx)
		}
		if err == nil {
			err = conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(?)`, key).Scan(&won)
		}
		if err == nil && won {
			return e.lead(name, key, conn), nil
		}
		if err != nil && ctx.Err() == nil {
			if msg := err.Error(); msg != last {
				e.db.log.Warn("postgres: cannot try to lead; trying again", "name", name, "every", e.interval, "err", err)
				last = msg
			}
			discard(conn)
			conn = nil
		}
		if werr := e.clock.Sleep(ctx, e.interval); werr != nil {
			discard(conn)
			return nil, fmt.Errorf("postgres: lead %s: %w", name, werr)
		}
	}
}

// session takes a connection from the pool for an election and sets
// who holds it and how long the server waits on it.
func (e *Elector) session(ctx context.Context) (*sql.Conn, error) {
	conn, err := e.db.pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	idle := strconv.FormatInt((3 * e.interval).Milliseconds(), 10)
	stmt := strconv.FormatInt(e.interval.Milliseconds(), 10)
	_, err = conn.ExecContext(ctx, `SELECT set_config('application_name', ?, false),
	set_config('idle_session_timeout', ?, false), set_config('statement_timeout', ?, false)`,
		e.holder, idle, stmt)
	if err != nil {
		discard(conn)
		return nil, err
	}
	return conn, nil
}

// Leader is the holder that leads name now, and false when no replica
// does: the application_name of the session holding name's lock.
func (e *Elector) Leader(ctx context.Context, name string) (holder string, ok bool, err error) {
	hi, lo := lockParts(LeaderKey(name))
	err = e.db.pool.QueryRowContext(ctx, `SELECT a.application_name
FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid::bigint = ? AND l.objid::bigint = ?`, hi, lo).Scan(&holder)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("postgres: who leads %s: %w", name, err)
	}
	return holder, true, nil
}

// holderName is name, or host/pid when it is empty, in the printable
// ASCII and 63 bytes application_name keeps.
func holderName(name string) string {
	if name == "" {
		host, _ := os.Hostname()
		name = host + "/" + strconv.Itoa(os.Getpid())
	}
	b := []byte(name)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b[:min(len(b), 63)])
}

// discard closes conn instead of returning it to the pool, because the
// session carries the election's settings (and may hold its lock).
func discard(conn *sql.Conn) {
	if conn != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = conn.Close()
	}
}

// lockParts are the halves of an advisory lock key as pg_locks shows
// them: classid the high 32 bits, objid the low, both unsigned.
func lockParts(key int64) (hi, lo int64) {
	return int64(uint64(key) >> 32), int64(uint64(key) & 0xffffffff)
}
