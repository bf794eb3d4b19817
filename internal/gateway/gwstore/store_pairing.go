package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Pending is a pairing code waiting for the owner's approval.
type Pending struct {
	Platform string
	Code     string
	// User is the platform's id of the user the code was issued to.
	User    string
	Created time.Time
	Expires time.Time
}

// Pairing is a user the owner approved on a platform.
type Pairing struct {
	Platform string
	User     string
	Approved time.Time
}

// Lock is a platform whose pairing is locked after failed approvals.
type Lock struct {
	Platform string
	Until    time.Time
}

// Pairings is everything ListPairings reports.
type Pairings struct {
	Pending  []Pending
	Approved []Pairing
	Locked   []Lock
}

// RequestCode issues a pairing code to user on platform, for the gateway
// to send to an unauthorized user. Within RequestEvery of issuing one it
// returns the same code again with existing set, rather than a new one.
// When none can be issued the error is a *RefusedError whose text can be
// sent to the user: the platform's pairing is locked, or MaxPending codes
// are already waiting.
func (s *Store) RequestCode(ctx context.Context, platform, user string) (code string, existing bool, err error) {
	if err := needPlatformUser("request a pairing code", platform, user); err != nil {
		return "", false, err
	}
	now := s.now()
	p, u := s.text(platform), s.text(user)
	var refused error
	err = s.writeTx(ctx, "request pairing code", func(tx *sql.Tx) error {
		code, existing, refused = "", false, nil
		// The platform's row first, then its codes, in the order
		// Approve takes them, so the two never wait on each other.
		if until, err := lockPairing(ctx, tx, p, now); err != nil || !until.IsZero() {
			refused = &RefusedError{Reason: ErrPairingLocked, Platform: platform, Until: until}
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM gateway_pairing_codes WHERE platform = ? AND expires_at <= ?`, p, micros(now)); err != nil {
			return err
		}
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT code, created_at FROM gateway_pairing_codes WHERE platform = ? AND user_id = ?`, p, u).Scan(&code, &created)
		switch {
		case err == nil && now.Before(fromMicros(created).Add(RequestEvery)):
			existing = true
			return nil
		case err == nil:
			// The user's window has passed: the old code gives way to a
			// new one rather than counting against the platform's limit.
			if _, err := tx.ExecContext(ctx, `DELETE FROM gateway_pairing_codes WHERE platform = ? AND user_id = ?`, p, u); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var pending int
		var oldest sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT count(*), min(expires_at) FROM gateway_pairing_codes WHERE platform = ?`, p).Scan(&pending, &oldest); err != nil {
			return err
		}
		if pending >= MaxPending {
			refused = &RefusedError{Reason: ErrTooManyPending, Platform: platform, Until: fromMicros(oldest.Int64)}
			return nil
		}
		code, err = s.unusedCode(ctx, tx, p)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO gateway_pairing_codes (platform, code, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
			p, code, u, micros(now), micros(now.Add(CodeTTL)))
		return err
	})
	switch {
	case err != nil:
		return "", false, fmt.Errorf("gateway: pairing code for user %q on %s: %w", user, platform, err)
	case refused != nil:
		return "", false, refused
	}
	return code, existing, nil
}

// unusedCode draws codes until one is not pending on platform; with 32^8
// codes and at most MaxPending pending, a second draw is already rare.
func (s *Store) unusedCode(ctx context.Context, tx *sql.Tx, platform string) (string, error) {
	for range 8 {
		code, err := newCode(s.rand)
		if err != nil {
			return "", err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM gateway_pairing_codes WHERE platform = ? AND code = ?`, platform, code).Scan(&n); err != nil {
			return "", err
		}
		if n == 0 {
			return code, nil
		}
	}
	return "", errors.New("no unused pairing code in 8 draws: the random source repeats itself")
}

// lockPairing takes platform's row of pairing locks for the rest of tx,
// creating it if need be, and returns when the platform's lock ends,
// zero when it is not locked at now. Every decision on a platform's
// codes reads and then writes (how many are pending, is this code
// right, how many approvals failed): on PostgreSQL two replicas would
// each read before the other wrote, and issue codes past MaxPending or
// count failures past MaxFailures. Holding the row first puts them one
// after the other, as SQLite's one writer does. platform is as stored
// (Store.text).
func lockPairing(ctx context.Context, tx *sql.Tx, platform string, now time.Time) (time.Time, error) {
	var until int64
	err := tx.QueryRowContext(ctx, `INSERT INTO gateway_pairing_locks (platform, failures, locked_until) VALUES (?, 0, 0)
ON CONFLICT (platform) DO UPDATE SET failures = gateway_pairing_locks.failures RETURNING locked_until`, platform).Scan(&until)
	switch {
	case err != nil:
		return time.Time{}, err
	case until > micros(now):
		return fromMicros(until), nil
	}
	return time.Time{}, nil
}

// needPlatformUser checks the names every pairing call takes.
func needPlatformUser(what, platform, user string) error {
	if platform == "" {
		return fmt.Errorf("gateway: %s: empty platform: name the platform as configured (\"telegram\")", what)
	}
	if user == "" {
		return fmt.Errorf("gateway: %s on %s: empty user id: give the platform's id of the user", what, platform)
	}
	return nil
}
