package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Approve pairs the user a pending code on platform was issued to, and
// returns the pairing. A code that is malformed, was never issued, has
// expired or was approved already is a failed approval: MaxFailures of
// them in a row lock the platform's pairing for LockFor, during which no
// code is approved, not even the right one, so codes cannot be guessed.
// Errors name the platform and the code and say what is accepted.
func (s *Store) Approve(ctx context.Context, platform, code string) (Pairing, error) {
	if platform == "" {
		return Pairing{}, errors.New("gateway: approve: empty platform: name the platform the code was issued on (\"telegram\")")
	}
	norm, badCode := NormalizeCode(code)
	now := s.now()
	stored := s.text(platform)
	var p Pairing
	var failed error
	err := s.writeTx(ctx, "approve pairing code", func(tx *sql.Tx) error {
		p, failed = Pairing{}, nil
		if until, err := lockPairing(ctx, tx, stored, now); err != nil || !until.IsZero() {
			failed = &RefusedError{Reason: ErrPairingLocked, Platform: platform, Until: until}
			return err
		}
		if badCode == nil {
			var user string
			err := tx.QueryRowContext(ctx, `DELETE FROM gateway_pairing_codes WHERE platform = ? AND code = ? AND expires_at > ? RETURNING user_id`,
				stored, norm, micros(now)).Scan(&user)
			switch {
			case err == nil:
				p = Pairing{Platform: platform, User: s.untext(user), Approved: fromMicros(micros(now))}
				return approved(ctx, tx, stored, user, p.Approved)
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		var err error
		failed, err = failApproval(ctx, tx, platform, stored, code, badCode, now)
		return err
	})
	switch {
	case err != nil:
		return Pairing{}, fmt.Errorf("gateway: approve code %q on %s: %w", code, platform, err)
	case failed != nil:
		return Pairing{}, failed
	}
	return p, nil
}

// approved records the pairing of user on platform (both as stored)
// at at and clears the platform's failed approvals.
func approved(ctx context.Context, tx *sql.Tx, platform, user string, at time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO gateway_pairings (platform, user_id, approved_at) VALUES (?, ?, ?)
ON CONFLICT (platform, user_id) DO UPDATE SET approved_at = excluded.approved_at`, platform, user, micros(at)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE gateway_pairing_locks SET failures = 0 WHERE platform = ?`, platform)
	return err
}

// failApproval counts a failed approval of code on platform (stored as
// stored) at now and returns the error to report: badCode when the code
// was malformed, else ErrNoSuchCode; the MaxFailures-th failure also
// locks the platform and drops its pending codes, which could not be
// approved before they expire anyway. The caller holds the platform's
// row (lockPairing).
func failApproval(ctx context.Context, tx *sql.Tx, platform, stored, code string, badCode error, now time.Time) (error, error) {
	var failures int
	if err := tx.QueryRowContext(ctx, `UPDATE gateway_pairing_locks SET failures = failures + 1 WHERE platform = ? RETURNING failures`, stored).Scan(&failures); err != nil {
		return nil, err
	}
	why := badCode
	if why == nil {
		why = fmt.Errorf("%w %q on %s: it was never issued there, has expired (codes last %gh) or was approved already; the pending codes are listed by hermes pairing list",
			ErrNoSuchCode, code, platform, CodeTTL.Hours())
	}
	if failures < MaxFailures {
		return fmt.Errorf("%w (%d more failed approvals lock pairing on %s for %gh)", why, MaxFailures-failures, platform, LockFor.Hours()), nil
	}
	until := now.Add(LockFor)
	if _, err := tx.ExecContext(ctx, `UPDATE gateway_pairing_locks SET failures = 0, locked_until = ? WHERE platform = ?`, micros(until), stored); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gateway_pairing_codes WHERE platform = ?`, stored); err != nil {
		return nil, err
	}
	return fmt.Errorf("%w; %w", why, &RefusedError{Reason: ErrPairingLocked, Platform: platform, Until: until}), nil
}

// Revoke removes user's pairing on platform, and any code pending for
// them there. A user who is not paired is an error naming both.
func (s *Store) Revoke(ctx context.Context, platform, user string) error {
	if err := needPlatformUser("revoke a pairing", platform, user); err != nil {
		return err
	}
	var n int64
	err := s.writeTx(ctx, "revoke pairing", func(tx *sql.Tx) error {
		// An approval of the user's code on another replica is then
		// wholly before or wholly after: it pairs the user and is
		// revoked, or finds the code gone.
		if _, err := lockPairing(ctx, tx, s.text(platform), s.now()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM gateway_pairings WHERE platform = ? AND user_id = ?`, s.text(platform), s.text(user))
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM gateway_pairing_codes WHERE platform = ? AND user_id = ?`, s.text(platform), s.text(user))
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("gateway: revoke user %q on %s: %w", user, platform, err)
	case n == 0:
		return fmt.Errorf("%w: user %q has no pairing on %s; revoke takes a platform and a user id as hermes pairing list shows them", ErrNotPaired, user, platform)
	}
	return nil
}

// Paired reports whether the owner approved user on platform. A pairing
// on another platform does not count: ids are only unique per platform.
// Ids compare exactly, except email addresses (ids with an @), which
// compare without regard to ASCII case, as the allowlists compare them;
// a Unicode look-alike of a letter (the Kelvin sign for K) is not it.
func (s *Store) Paired(ctx context.Context, platform, user string) (bool, error) {
	if platform == "" || user == "" {
		return false, nil
	}
	column, id := "user_id", user
	if strings.Contains(user, "@") {
		column, id = s.lowerSQL(column), asciiLower(user)
	}
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM gateway_pairings WHERE platform = ? AND `+column+` = ?`,
		s.text(platform), s.text(id)).Scan(&n); err != nil {
		return false, fmt.Errorf("gateway: is user %q paired on %s: %w", user, platform, err)
	}
	return n > 0, nil
}

// Grant records user as paired on platform, approved at at, as if a code
// of theirs had been approved: for pairings the owner approved in another
// agent (hermes migrate hermes-agent brings Hermes Agent's). It reports
// whether the pairing is new; one already there is kept as it is.
func (s *Store) Grant(ctx context.Context, platform, user string, at time.Time) (bool, error) {
	if platform == "" || user == "" {
		return false, fmt.Errorf("gateway: grant: platform %q and user %q must both be given", platform, user)
	}
	var added int64
	err := s.writeTx(ctx, "grant pairing", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO gateway_pairings (platform, user_id, approved_at) VALUES (?, ?, ?)
ON CONFLICT (platform, user_id) DO NOTHING`, s.text(platform), s.text(user), micros(at))
		if err != nil {
			return err
		}
		added, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return false, fmt.Errorf("gateway: grant %q on %s: %w", user, platform, err)
	}
	return added > 0, nil
}
