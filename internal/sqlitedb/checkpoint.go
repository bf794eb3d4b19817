package sqlitedb

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"
)

// checkpointer runs the periodic passive WAL checkpoints on a connection
// of its own, from a goroutine of its own. A checkpoint copies pages into
// the database file and syncs it, which on a slow disk takes tens of
// milliseconds; run on the one writer connection, every writer of the
// process queued behind it, and the gateway's slowest messages were
// those that arrived during one. A passive checkpoint needs no write
// lock, so writers go on while it runs. The connection and the goroutine
// start with the first checkpoint, so a short command opening the
// database pays for neither.
type checkpointer struct {
	path string
	busy time.Duration
	log  *slog.Logger
	// ran, when set (tests), hears of each checkpoint that ran.
	ran chan<- error

	mu     sync.Mutex
	req    chan struct{}
	done   chan struct{}
	closed bool
}

// request asks for a checkpoint; requests made while one runs make one
// more, not one each.
func (c *checkpointer) request() {
	if c == nil { // a database in memory has no WAL
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.req == nil {
		c.req, c.done = make(chan struct{}, 1), make(chan struct{})
		go c.run()
	}
	select {
	case c.req <- struct{}{}:
	default:
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	conn, err := sql.Open("sqlite", writerDSN(c.path, c.busy))
	if err != nil {
		c.log.Warn("sqlite: the checkpoint connection did not open", "err", err)
		for range c.req {
		}
		return
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	for range c.req {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
		cancel()
		if err != nil {
			c.log.Warn("sqlite: passive WAL checkpoint failed", "err", err)
		}
		if c.ran != nil {
			c.ran <- err
		}
	}
}

// close waits for a checkpoint in progress and stops the goroutine.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.closed = true
	started := c.req != nil
	if started {
		close(c.req)
	}
	c.mu.Unlock()
	if started {
		<-c.done
	}
}
