package gwstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Held is an inbound message the gateway took and has not finished
// answering.
type Held struct {
	ID       int64
	Platform string
	EventID  string
	// Event is the message as the gateway stored it; the store does not
	// read it.
	Event    []byte
	Received time.Time
	// Started is when its turn began; zero while it waits in its chat's
	// queue.
	Started time.Time
	// Holder is the process that holds it ("host/pid"), "" for a
	// message held before holders were recorded.
	Holder string
}

// Hold records a message the gateway has taken but not answered yet and
// returns its id; started records that its turn starts now (see Start).
// The platform has been told the message arrived (its update
// confirmed), so from here on the gateway alone keeps it: a message
// waiting behind a busy chat when hermes stops is still here when it
// starts again.
func (s *Store) Hold(ctx context.Context, platform, eventID string, event []byte, started bool) (int64, error) {
	var id int64
	now := micros(s.now())
	var startedAt int64
	if started {
		startedAt = now
	}
	err := s.writeTx(ctx, "hold message", func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `INSERT INTO gateway_inbox (platform, event_id, event, received_at, started_at, holder) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			s.text(platform), s.text(eventID), event, now, startedAt, s.text(s.holder)).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("gateway: hold message %s of %s: %w", eventID, platform, err)
	}
	return id, nil
}

// Take is Seen and Hold of a message in one transaction: it records
// that eventID was taken and holds the message (not started), or, for a
// redelivery within ttl, does neither and reports first false. Done
// apart, a process that died between the two left an event marked as
// seen that nobody held: its redelivery was dropped and the message
// lost. Done together, the message is either held, and run by whoever
// adopts it, or offered again by the platform.
func (s *Store) Take(ctx context.Context, platform, eventID string, event []byte, ttl time.Duration) (id int64, first bool, err error) {
	if err := checkSeen(platform, eventID, ttl); err != nil {
		return 0, false, err
	}
	now := micros(s.now())
	err = s.writeTx(ctx, "take message", func(tx *sql.Tx) error {
		id = 0
		if first, err = s.seenTx(ctx, tx, platform, eventID, ttl, now); err != nil || !first {
			return err
		}
		return tx.QueryRowContext(ctx, `INSERT INTO gateway_inbox (platform, event_id, event, received_at, started_at, holder) VALUES (?, ?, ?, ?, 0, ?) RETURNING id`,
			s.text(platform), s.text(eventID), event, now, s.text(s.holder)).Scan(&id)
	})
	if err != nil {
		return 0, false, fmt.Errorf("gateway: take message %s of %s: %w", eventID, platform, err)
	}
	return id, first, nil
}

// Start records that the held message's turn began: from here the
// session has the message, and running it again after a crash could run
// its tools twice.
func (s *Store) Start(ctx context.Context, id int64) error {
	return s.inboxExec(ctx, "start message", `UPDATE gateway_inbox SET started_at = ? WHERE id = ?`, micros(s.now()), id)
}

// Release forgets a held message whose turn is over.
func (s *Store) Release(ctx context.Context, id int64) error {
	return s.inboxExec(ctx, "release message", `DELETE FROM gateway_inbox WHERE id = ?`, id)
}

func (s *Store) inboxExec(ctx context.Context, what, q string, args ...any) error {
	err := s.writeTx(ctx, what, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: %s %d: %w", what, args[len(args)-1], err)
	}
	return nil
}

// HeldMessages returns every held message, oldest first, whoever holds
// it.
func (s *Store) HeldMessages(ctx context.Context) ([]Held, error) {
	return s.held(ctx, `SELECT `+heldColumns+` FROM gateway_inbox ORDER BY id`)
}

// Adopt takes over the held messages of processes that are gone, as
// alive tells them, and returns them, oldest first: what this process
// must now run or answer. Each is taken by a conditional update, so of
// replicas adopting at once each message goes to one. Messages held by
// this store's own holder are not returned: their turns run here.
func (s *Store) Adopt(ctx context.Context, alive func(holder string) bool) ([]Held, error) {
	all, err := s.held(ctx, `SELECT `+heldColumns+` FROM gateway_inbox WHERE holder <> ? ORDER BY id`, s.text(s.holder))
	if err != nil {
		return nil, err
	}
	var out []Held
	for _, h := range all {
		if h.Holder != "" && alive(h.Holder) {
			continue
		}
		var took bool
		err := s.writeTx(ctx, "adopt message", func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE gateway_inbox SET holder = ? WHERE id = ? AND holder = ?`,
				s.text(s.holder), h.ID, s.text(h.Holder))
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			took = n == 1
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("gateway: adopt held message %d: %w", h.ID, err)
		}
		if took {
			h.Holder = s.holder
			out = append(out, h)
		}
	}
	return out, nil
}

const heldColumns = `id, platform, event_id, event, received_at, started_at, holder`

// held runs a query of heldColumns.
func (s *Store) held(ctx context.Context, q string, args ...any) ([]Held, error) {
	var out []Held
	err := s.query(ctx, q, args,
		func(rows *sql.Rows) error {
			var h Held
			var received, started int64
			if err := rows.Scan(&h.ID, &h.Platform, &h.EventID, &h.Event, &received, &started, &h.Holder); err != nil {
				return err
			}
			h.Platform, h.EventID, h.Holder = s.untext(h.Platform), s.untext(h.EventID), s.untext(h.Holder)
			h.Received = fromMicros(received)
			if started != 0 {
				h.Started = fromMicros(started)
			}
			out = append(out, h)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("gateway: list held messages: %w", err)
	}
	return out, nil
}
