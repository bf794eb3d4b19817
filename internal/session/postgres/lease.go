package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/pgdb"
	"github.com/hermes-go/hermes/internal/session"
)

// AcquireLease takes or renews the lease on req.SessionID. One INSERT ...
// ON CONFLICT decides: it takes a free lease, and updates a held one only
// when the conditions of session.Leaser allow; when they do not, it still
// locks the lease's row, so the row read next in the same transaction is
// the lease as it stands.
func (s *Store) AcquireLease(ctx context.Context, req session.LeaseRequest) (session.Lease, error) {
	var lease session.Lease
	req.SessionID, req.Holder, req.Replace = text(req.SessionID), text(req.Holder), text(req.Replace)
	until := toMicros(req.Now.Add(req.TTL))
	err := s.tx(ctx, "lease session "+req.SessionID, func(tx *sql.Tx) error {
		var holder string
		var at int64
		err := tx.QueryRowContext(ctx, `
INSERT INTO session_leases AS l (session_id, holder, expires_at) VALUES ($1, $2, $3)
ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
WHERE l.holder = excluded.holder OR l.expires_at <= $4 OR ($5 <> '' AND l.holder = $5)
RETURNING holder, expires_at`, req.SessionID, req.Holder, until, toMicros(req.Now), req.Replace).Scan(&holder, &at)
		switch {
		case pgdb.Code(err) == pgdb.CodeForeignKeyViolation:
			return session.ErrNotFound
		case errors.Is(err, sql.ErrNoRows):
			err = tx.QueryRowContext(ctx, `SELECT holder, expires_at FROM session_leases WHERE session_id = $1`,
				req.SessionID).Scan(&holder, &at)
			if err != nil {
				return fmt.Errorf("read the lease: %w", err)
			}
		case err != nil:
			return err
		}
		lease = session.Lease{Held: holder == req.Holder, Holder: holder, Until: fromMicros(at)}
		return nil
	})
	return lease, err
}

// ReleaseLease gives the lease on a session up if holder holds it.
func (s *Store) ReleaseLease(ctx context.Context, sessionID, holder string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM session_leases WHERE session_id = $1 AND holder = $2`,
		text(sessionID), text(holder)); err != nil {
		return fmt.Errorf("postgres: release the lease of session %s held by %s: %w", sessionID, holder, err)
	}
	return nil
}
