package gwstore

import (
	"context"
	"database/sql"
	"fmt"
)

// ListPairings returns the codes pending now, the approved pairings and
// the platforms whose pairing is locked, each ordered by platform and
// then by time.
func (s *Store) ListPairings(ctx context.Context) (Pairings, error) {
	now := micros(s.now())
	var out Pairings
	err := s.query(ctx, `SELECT platform, code, user_id, created_at, expires_at FROM gateway_pairing_codes
WHERE expires_at > ? ORDER BY platform, created_at`, []any{now}, func(r *sql.Rows) error {
		var p Pending
		var created, expires int64
		if err := r.Scan(&p.Platform, &p.Code, &p.User, &created, &expires); err != nil {
			return err
		}
		p.Platform, p.User = s.untext(p.Platform), s.untext(p.User)
		p.Created, p.Expires = fromMicros(created), fromMicros(expires)
		out.Pending = append(out.Pending, p)
		return nil
	})
	if err == nil {
		err = s.query(ctx, `SELECT platform, user_id, approved_at FROM gateway_pairings ORDER BY platform, approved_at`, nil, func(r *sql.Rows) error {
			var p Pairing
			var at int64
			if err := r.Scan(&p.Platform, &p.User, &at); err != nil {
				return err
			}
			p.Platform, p.User, p.Approved = s.untext(p.Platform), s.untext(p.User), fromMicros(at)
			out.Approved = append(out.Approved, p)
			return nil
		})
	}
	if err == nil {
		err = s.query(ctx, `SELECT platform, locked_until FROM gateway_pairing_locks WHERE locked_until > ? ORDER BY platform`, []any{now}, func(r *sql.Rows) error {
			var l Lock
			var until int64
			if err := r.Scan(&l.Platform, &until); err != nil {
				return err
			}
			l.Platform, l.Until = s.untext(l.Platform), fromMicros(until)
			out.Locked = append(out.Locked, l)
			return nil
		})
	}
	if err != nil {
		return Pairings{}, fmt.Errorf("gateway: list pairings: %w", err)
	}
	return out, nil
}

// query runs q on the read pool and calls row for each row.
func (s *Store) query(ctx context.Context, q string, args []any, row func(*sql.Rows) error) error {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
