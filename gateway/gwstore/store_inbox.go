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
		return tx.QueryRowContext(ctx, `INSERT INTO gateway_inbox (platform, event_id, event, received_at, started_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
			s.text(platform), s.text(eventID), event, now, startedAt).Scan(&id)
	})
	if err != nil {
		return 0, fmt.Errorf("gateway: hold message %s of %s: %w", eventID, platform, err)
	}
	return id, nil
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

// HeldMessages returns every held message, oldest first.
func (s *Store) HeldMessages(ctx context.Context) ([]Held, error) {
	var out []Held
	err := s.query(ctx, `SELECT id, platform, event_id, event, received_at, started_at FROM gateway_inbox ORDER BY id`, nil,
		func(rows *sql.Rows) error {
			var h Held
			var received, started int64
			if err := rows.Scan(&h.ID, &h.Platform, &h.EventID, &h.Event, &received, &started); err != nil {
				return err
			}
			h.Platform, h.EventID = s.untext(h.Platform), s.untext(h.EventID)
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
