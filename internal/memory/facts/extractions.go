package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// Extraction costs a model call, and several processes (a chat, a job's
// process, the replicas of hermes serve) may each decide that a session
// is due. The store keeps, per session, how many of its messages the last
// extraction read, and per day how many extractions there were: a claim
// is granted once for the same messages, and never beyond the day's cap,
// whichever process asks.

// ErrExtracted is returned (wrapped) by ClaimExtraction when the
// session's messages were extracted already (by this process or another).
var ErrExtracted = errors.New("the session's messages were extracted already")

// ErrBudget is returned (wrapped) by ClaimExtraction when the day's
// extractions are used up (memory.long_term.max_extractions_per_day).
var ErrBudget = errors.New("today's extractions are used up")

// Claim is an extraction the store granted: of session's first
// Messages messages, where an earlier one had read Previous.
type Claim struct {
	Session            string
	Previous, Messages int
}

// ClaimExtraction grants the caller the extraction of sessionID's first
// n messages, if no extraction read as many yet and fewer than perDay
// extractions were granted today (UTC; perDay 0 is no cap). It fails
// wrapping ErrExtracted or ErrBudget otherwise, and grants nothing.
func (s *Store) ClaimExtraction(ctx context.Context, sessionID string, n, perDay int) (Claim, error) {
	if sessionID == "" || n < 1 {
		return Claim{}, fmt.Errorf("facts: claim extraction: session %q and messages %d must be set", sessionID, n)
	}
	limit := int64(perDay)
	if perDay <= 0 {
		limit = math.MaxInt64
	}
	now := s.now()
	day := now.UTC().Format("2006-01-02")
	c := Claim{Session: sessionID, Messages: n}
	err := s.writeTx(ctx, "facts: claim extraction", func(tx *sql.Tx) error {
		c.Previous = 0
		err := tx.QueryRowContext(ctx, `SELECT messages FROM fact_extractions WHERE session_id = ?`, sessionID).Scan(&c.Previous)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// The upsert takes the session only if no extraction read as
		// many messages, judged on the row as it is when the statement
		// runs: of two processes claiming at once, one gets no row back.
		var got int
		err = tx.QueryRowContext(ctx, `INSERT INTO fact_extractions (session_id, messages, at) VALUES (?, ?, ?)
ON CONFLICT (session_id) DO UPDATE SET messages = excluded.messages, at = excluded.at, due = 0
WHERE fact_extractions.messages < excluded.messages RETURNING messages`, sessionID, n, micros(now)).Scan(&got)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", sessionID, ErrExtracted)
		}
		if err != nil {
			return err
		}
		err = tx.QueryRowContext(ctx, `INSERT INTO fact_extraction_days (day, count) VALUES (?, 1)
ON CONFLICT (day) DO UPDATE SET count = fact_extraction_days.count + 1
WHERE fact_extraction_days.count < ? RETURNING count`, day, limit).Scan(&got)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%d on %s: %w", perDay, day, ErrBudget)
		}
		return err
	})
	if err != nil {
		return Claim{}, fmt.Errorf("facts: claim extraction: %w", err)
	}
	return c, nil
}

// Pending is a session whose facts are due for extraction.
type Pending struct {
	Session string
	Due     time.Time
}

// Due records that sessionID's facts are due for extraction at t: its
// idle timer lives in one process, and this row outlives it, so the next
// hermes serve takes it up (Pending) after a restart or a crash. A later
// Due moves the time; a granted claim clears it, as does Settle.
func (s *Store) Due(ctx context.Context, sessionID string, t time.Time) error {
	err := s.writeTx(ctx, "facts: extraction due", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO fact_extractions (session_id, messages, at, due) VALUES (?, 0, ?, ?)
ON CONFLICT (session_id) DO UPDATE SET due = excluded.due`, sessionID, micros(s.now()), micros(t))
		return err
	})
	if err != nil {
		return fmt.Errorf("facts: extraction of %s due: %w", sessionID, err)
	}
	return nil
}

// Settle clears sessionID's due extraction: there was nothing (more) to
// extract.
func (s *Store) Settle(ctx context.Context, sessionID string) error {
	err := s.writeTx(ctx, "facts: settle extraction", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE fact_extractions SET due = 0 WHERE session_id = ? AND due > 0`, sessionID)
		return err
	})
	if err != nil {
		return fmt.Errorf("facts: settle the extraction of %s: %w", sessionID, err)
	}
	return nil
}

// Pending returns up to limit sessions whose extraction is due, the
// earliest first.
func (s *Store) Pending(ctx context.Context, limit int) ([]Pending, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT session_id, due FROM fact_extractions WHERE due > 0 ORDER BY due LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("facts: pending extractions: %w", err)
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		var (
			p   Pending
			due int64
		)
		if err := rows.Scan(&p.Session, &due); err != nil {
			return nil, fmt.Errorf("facts: pending extractions: %w", err)
		}
		p.Due = fromMicros(due)
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("facts: pending extractions: %w", err)
	}
	return out, nil
}

// ReleaseExtraction gives back a claim whose extraction failed, so the
// session's messages are extracted at its next chance, a restart's
// included (it is due again); the day's count keeps it, since the model
// call was made. A claim overtaken meanwhile
// (a later one read more messages) is left alone.
func (s *Store) ReleaseExtraction(ctx context.Context, c Claim) error {
	err := s.writeTx(ctx, "facts: release extraction", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE fact_extractions SET messages = ?, due = ? WHERE session_id = ? AND messages = ?`,
			c.Previous, micros(s.now()), c.Session, c.Messages)
		return err
	})
	if err != nil {
		return fmt.Errorf("facts: release extraction of %s: %w", c.Session, err)
	}
	return nil
}

// Expire deletes every fact, of every owner, neither stored nor recalled
// since before, and returns how many went: facts unused for
// memory.long_term.expire_after are dropped rather than kept forever.
// The record of the sessions last extracted before then goes too, and
// the daily counts of the days before it.
func (s *Store) Expire(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := s.writeTx(ctx, "facts: expire", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM facts WHERE created_at < ? AND last_used_at < ?`, micros(before), micros(before))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM fact_extractions WHERE at < ? AND due = 0`, micros(before)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM fact_extraction_days WHERE day < ?`, before.UTC().Format("2006-01-02"))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("facts: expire: %w", err)
	}
	return int(n), nil
}
