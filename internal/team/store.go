// Package team is the durable task queue a team of agents works through:
// a coordinator posts tasks for roles, workers claim the tasks of their
// role, run them and leave artifacts, and the coordinator waits for them.
// Everything lives in the database (state.db, or PostgreSQL shared by
// several replicas), so several processes share one queue, a crashed
// worker's task is claimed again once its lease runs out, and a run
// resumes after a crash without redoing the tasks already done.
//
// A task moves waiting → ready → claimed → done | failed | cancelled. It
// is ready once every input is done. A claim is a lease: a worker renews
// it while it works, and a claim whose lease ran out goes back to ready
// (counting the attempt) at the next Claim of any worker. A failed
// attempt goes back to ready until the task's attempts are used up; then
// the task fails, and so does every task waiting on it, directly or not,
// since it can never get its inputs. Cancelling or finishing a run
// cancels the tasks of it not finished yet.
//
// On PostgreSQL a claim takes its task FOR NO KEY UPDATE SKIP LOCKED, so
// workers of several replicas never take the same task and never wait
// for each other. A replica that dies holding tasks stops renewing their
// leases, and the first claim of any replica after they end takes them
// again; a done task is never claimed again. A run a scheduled job
// started is leased the same way to the process coordinating it, and
// taken over by another once that lease runs out (store_runlease.go).
// Leases are times of the replicas' clocks, which must agree to well
// within a lease (NTP does).
//
// Workers wake at once when their own Store posts or frees a task, and
// otherwise poll (StoreOptions.PollInterval): a task another replica
// posts waits at most that long. Polling is the whole mechanism, not a
// fallback beside PostgreSQL's LISTEN/NOTIFY: a lease running out, which
// a claim must also notice, sends no notification, so the poll is needed
// anyway; lib/pq hands notifications only to a pq.Listener that dials a
// connection of its own from the DSN, which a Store given a sqldb.DB has
// not; and a second is little beside a task that is an agent's turn.
//
// River (riverqueue/river v0.51.2) was weighed against these leases and
// not adopted: it adds 4 MB (7%) to hermes and links pgx v5 even when run
// over lib/pq; it rescues a running job by its age (an hour by default),
// not by a renewed lease, so a dead replica's task waits an hour or a long
// turn runs twice; its SQLite driver is early and wants one connection;
// and its tables keep no inputs, artifacts or runs, which we would keep.
package team

import (
	"database/sql"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/sqldb"
)

// ErrNotFound is returned (wrapped) for a run or task the store does not have.
var ErrNotFound = errors.New("not found")

// ErrLeaseLost is returned (wrapped) when a worker renews, completes or
// fails a task it no longer holds: its lease ran out and another worker
// claimed the task, or the run was cancelled.
var ErrLeaseLost = errors.New("the task is no longer held by this claim")

// StoreOptions tune a Store. The zero value is ready to use.
type StoreOptions struct {
	// Clock is the clock for timestamps, leases and Wait's polling; nil
	// means the real clock.
	Clock clock.Clock
	// PollInterval is how often Wait and ClaimWait read the queue again
	// to see what other processes or replicas posted and finished, and
	// which leases ran out; zero means one second. Changes made through
	// this Store wake them at once.
	PollInterval time.Duration
}

// Store holds the team tables of one database. It is safe for concurrent
// use, and several processes may share the database: every change is one
// write transaction. SQLite runs those one at a time across processes
// (BEGIN IMMEDIATE), so a read-then-write inside one sees nothing change
// between the two. PostgreSQL runs the transactions of several replicas
// side by side (READ COMMITTED), so there every row a transaction reads
// and then writes on the strength of what it read is locked as it is
// read (locks below): the same code is then as safe on both.
type Store struct {
	db   sqldb.DB
	read *sql.DB
	clk  clock.Clock
	poll time.Duration
	lock locks

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a task finishes or becomes ready
}

// NewStore returns the queue over db, whose Open has brought the team
// tables up to date. db is closed by whoever opened it.
func NewStore(db sqldb.DB, opt StoreOptions) *Store {
	poll := opt.PollInterval
	if poll <= 0 {
		poll = time.Second
	}
	s := &Store{db: db, read: db.Reader(), clk: clock.OrReal(opt.Clock), poll: poll, changed: make(chan struct{})}
	if db.Dialect() == sqldb.Postgres {
		s.lock = locks{update: " FOR NO KEY UPDATE", share: " FOR SHARE", skip: " FOR NO KEY UPDATE SKIP LOCKED"}
	}
	return s
}

// locks are the clauses a SELECT inside a write transaction ends with to
// lock the rows it reads, on PostgreSQL; on SQLite, whose writers never
// overlap, they are empty (it has no such clause). NO KEY UPDATE rather
// than UPDATE lets the foreign keys of rows inserted meanwhile still
// point at the locked rows.
type locks struct {
	// update locks rows the transaction will change.
	update string
	// share keeps rows from changing until the transaction ends, as a
	// post does with its run and inputs while it decides the new task's
	// state from theirs.
	share string
	// skip is update that passes over rows another transaction holds,
	// so claimers never wait for each other: each takes the next task.
	skip string
}

// text is v as the database can hold it. PostgreSQL's text refuses NUL
// bytes and invalid UTF-8, which tool output and models produce; there
// they become U+FFFD, so a task's result is kept rather than lost to a
// refused write. SQLite keeps v as it is.
func (s *Store) text(v string) string {
	if s.db.Dialect() != sqldb.Postgres {
		return v
	}
	return strings.ReplaceAll(strings.ToValidUTF8(v, "\uFFFD"), "\x00", "\uFFFD")
}

// signal wakes every Wait and ClaimWait of this Store.
func (s *Store) signal() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// changes is the channel the next signal closes.
func (s *Store) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Store) now() int64 { return s.clk.Now().UnixMicro() }

// fromMicros is a stored time; 0 is the zero time.
func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}
