package team

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A run started by no terminal (a scheduled job's) is leased to the
// process that runs it, as a task is to its worker: the holder renews
// the lease while it coordinates, and once it stops (killed, its machine
// gone, its replica stopped) the lease runs out and Orphans lists the run
// for another process to take over with HoldRun. The compare-and-set on
// both holder and lease makes the takeover happen once, and never from a
// holder that renewed in the meantime: that holder then finds the run
// gone at its next renewal and stops. A run started by hand is not
// leased; a resume by hand alone goes on with it, as the person who
// stopped it expects.

// HoldRun makes holder the process that runs r, if r is still held as
// it was read (same holder, same lease): two processes taking over the
// same run cannot both take it. A leased run stays leased, for lease from
// now; one that is not stays so. It fails wrapping ErrLeaseLost when
// another process took the run or renewed it first, or it ended.
func (s *Store) HoldRun(ctx context.Context, r Run, holder string, lease time.Duration) error {
	if lease <= 0 {
		lease = DefaultLease
	}
	return s.updateRun(ctx, r.ID, "hold team run", `UPDATE team_runs SET holder = ?, lease_until = CASE WHEN lease_until > 0 THEN CAST(? AS BIGINT) ELSE 0 END
WHERE id = ? AND holder = ? AND lease_until = ? AND state = ?`,
		func(n int64) error {
			if n == 0 {
				return fmt.Errorf("run %d is no longer held by %q as it was: %w", r.ID, r.Holder, ErrLeaseLost)
			}
			return nil
		}, s.text(holder), s.now()+lease.Microseconds(), r.ID, s.text(r.Holder), micros(r.LeaseUntil), string(RunActive))
}

// RenewRun extends holder's lease on run id to lease from now. It fails
// wrapping ErrLeaseLost when the run is no longer holder's (another
// process took it over), no longer active, or not leased.
func (s *Store) RenewRun(ctx context.Context, id int64, holder string, lease time.Duration) error {
	return s.updateRun(ctx, id, "renew team run lease", `UPDATE team_runs SET lease_until = ? WHERE id = ? AND holder = ? AND state = ? AND lease_until > 0`,
		func(n int64) error {
			if n == 0 {
				return fmt.Errorf("run %d is no longer held by %q: %w", id, holder, ErrLeaseLost)
			}
			return nil
		}, s.now()+lease.Microseconds(), id, s.text(holder), string(RunActive))
}

// ReleaseRun ends holder's lease on run id at once, keeping the run
// active and leased: a holder that stops before the run ends (shut down,
// interrupted) lets another process take it over without waiting for the
// lease to run out. A run not leased, not active or not holder's is left
// as it is.
func (s *Store) ReleaseRun(ctx context.Context, id int64, holder string) error {
	return s.updateRun(ctx, id, "release team run", `UPDATE team_runs SET lease_until = 1 WHERE id = ? AND holder = ? AND state = ? AND lease_until > 0`,
		func(int64) error { return nil }, id, s.text(holder), string(RunActive))
}

// Orphans returns the active leased runs whose lease has run out, oldest
// first: their holders stopped, and another process may take them over.
func (s *Store) Orphans(ctx context.Context) ([]Run, error) {
	return s.queryRuns(ctx, "orphaned runs", `SELECT `+runColumns+` FROM team_runs WHERE state = ? AND lease_until > 0 AND lease_until < ? ORDER BY id`,
		string(RunActive), s.now())
}

// KeepRun renews holder's lease on run id every third of lease until ctx
// ends (then it returns nil), or until the lease is lost: another process
// took the run over, the run ended, or renewals failed until the lease
// had passed. It then returns an error wrapping ErrLeaseLost. warn is
// told each failed renewal that is retried.
func (s *Store) KeepRun(ctx context.Context, id int64, holder string, lease time.Duration, warn func(error)) error {
	return s.keep(ctx, lease, func(ctx context.Context) error { return s.RenewRun(ctx, id, holder, lease) }, warn)
}

// keep calls renew every third of lease until ctx ends (nil) or the
// lease is lost (an error wrapping ErrLeaseLost): renew returned
// ErrLeaseLost, or kept failing until lease had passed since its last
// success.
func (s *Store) keep(ctx context.Context, lease time.Duration, renew func(context.Context) error, warn func(error)) error {
	until := s.clk.Now().Add(lease)
	for {
		if s.clk.Sleep(ctx, lease/3) != nil {
			return nil
		}
		err := renew(ctx)
		switch {
		case err == nil:
			until = s.clk.Now().Add(lease)
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, ErrLeaseLost):
			return err
		default:
			warn(err)
			if !s.clk.Now().Before(until) {
				return fmt.Errorf("%w: renewals failed until the lease ended: %v", ErrLeaseLost, err)
			}
		}
	}
}

// micros is t as stored: microseconds since the epoch, 0 for the zero
// time.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}
