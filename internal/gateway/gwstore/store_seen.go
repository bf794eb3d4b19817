package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// pruneBatch is the most expired event rows one Seen call deletes, so
// pruning costs each call a bounded amount of work however many expired.
const pruneBatch = 64

// Seen records that the event eventID of platform was taken and reports
// whether this is the first time within ttl: platforms redeliver events
// (after a timeout, a restart, an unconfirmed poll), and a redelivered
// event must be answered once, also by another process sharing the file.
// A row older than ttl no longer counts, so an id a platform reuses much
// later is new again. Each call also deletes a bounded batch of expired
// rows.
func (s *Store) Seen(ctx context.Context, platform, eventID string, ttl time.Duration) (first bool, err error) {
	if err := checkSeen(platform, eventID, ttl); err != nil {
		return false, err
	}
	now := micros(s.now())
	err = s.writeTx(ctx, "record event", func(tx *sql.Tx) error {
		first, err = s.seenTx(ctx, tx, platform, eventID, ttl, now)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("gateway: record event %s of %s: %w", eventID, platform, err)
	}
	return first, nil
}

func checkSeen(platform, eventID string, ttl time.Duration) error {
	switch {
	case platform == "":
		return errors.New("gateway: seen: empty platform: name the platform the event came from (\"telegram\")")
	case eventID == "":
		return fmt.Errorf("gateway: seen: empty event id from platform %s: every event needs the platform's id to be deduplicated", platform)
	case ttl <= 0:
		return fmt.Errorf("gateway: seen: ttl %s for platform %s: the ttl must be positive (a day is usual)", ttl, platform)
	}
	return nil
}

// seenTx is Seen inside tx.
func (s *Store) seenTx(ctx context.Context, tx *sql.Tx, platform, eventID string, ttl time.Duration, now int64) (bool, error) {
	// An existing row only counts while it has not expired; an expired
	// one is taken over as if it were new.
	res, err := tx.ExecContext(ctx, `INSERT INTO gateway_seen (platform, event_id, expires_at) VALUES (?, ?, ?)
ON CONFLICT (platform, event_id) DO UPDATE SET expires_at = excluded.expires_at
WHERE gateway_seen.expires_at <= ?`, s.text(platform), s.text(eventID), now+ttl.Microseconds(), now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n > 0, s.prune(ctx, tx, now)
}

// prune deletes up to pruneBatch rows expired at now. The rows are
// picked by their key, which both databases have (SQLite's rowid is its
// own); on PostgreSQL rows another replica holds are skipped rather than
// waited for. The expiry is checked again on the row deleted, so a row
// that another replica's Seen took over after it was picked, and that
// counts again, is kept.
func (s *Store) prune(ctx context.Context, tx *sql.Tx, now int64) error {
	pick := `SELECT platform, event_id FROM gateway_seen WHERE expires_at <= ? LIMIT ?`
	if s.db.Dialect() == sqldb.Postgres {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM gateway_seen WHERE expires_at <= ? AND (platform, event_id) IN (`+pick+`)`,
		now, now, pruneBatch)
	return err
}
