package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/session"
)

var _ session.Leaser = (*Store)(nil)

// The statements of the leases, prepared once (statements.query).
const (
	leaseSessionExists = `SELECT count(*) FROM sessions WHERE id = ?`
	leaseSelect        = `SELECT holder, expires_at FROM session_leases WHERE session_id = ?`
	leaseUpsert        = `INSERT INTO session_leases (session_id, holder, expires_at) VALUES (?, ?, ?)
ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`
	leaseDelete = `DELETE FROM session_leases WHERE session_id = ? AND holder = ?`
)

// AcquireLease takes or renews a session's lease (session.Leaser) in one
// write transaction, so that of several processes asking at once exactly
// one gets it.
func (s *Store) AcquireLease(ctx context.Context, req session.LeaseRequest) (session.Lease, error) {
	var out session.Lease
	stmts, err := s.stmts.queries(ctx, leaseSessionExists, leaseSelect, leaseUpsert)
	if err != nil {
		return session.Lease{}, fmt.Errorf("sqlite: lease of session %s: %w", req.SessionID, err)
	}
	err = s.writeTx(ctx, "take the lease of session "+req.SessionID, func(tx *sql.Tx) error {
		var exists int
		if err := tx.StmtContext(ctx, stmts[0]).QueryRowContext(ctx, req.SessionID).Scan(&exists); err != nil {
			return err
		}
		if exists == 0 {
			return session.ErrNotFound
		}
		var holder string
		var until int64
		err := tx.StmtContext(ctx, stmts[1]).QueryRowContext(ctx, req.SessionID).Scan(&holder, &until)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		free := errors.Is(err, sql.ErrNoRows) || holder == req.Holder || !fromMicros(until).After(req.Now) ||
			(req.Replace != "" && holder == req.Replace)
		if !free {
			out = session.Lease{Holder: holder, Until: fromMicros(until)}
			return nil
		}
		exp := req.Now.Add(req.TTL)
		if _, err := tx.StmtContext(ctx, stmts[2]).ExecContext(ctx, req.SessionID, req.Holder, toMicros(exp)); err != nil {
			return err
		}
		out = session.Lease{Held: true, Holder: req.Holder, Until: fromMicros(toMicros(exp))}
		return nil
	})
	if err != nil {
		return session.Lease{}, fmt.Errorf("sqlite: lease of session %s: %w", req.SessionID, err)
	}
	return out, nil
}

// ReleaseLease deletes a session's lease if holder holds it.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, holder string) error {
	stmt, err := s.stmts.query(ctx, leaseDelete)
	if err == nil {
		err = s.writeTx(ctx, "release the lease of session "+sessionID, func(tx *sql.Tx) error {
			_, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, sessionID, holder)
			return err
		})
	}
	if err != nil {
		return fmt.Errorf("sqlite: release the lease of session %s: %w", sessionID, err)
	}
	return nil
}
