package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Cursor returns where platform's inbound stream name was read up to
// (Matrix's sync token), or "" when it was never saved: the platform then
// starts from now rather than from its history.
func (s *Store) Cursor(ctx context.Context, platform, name string) (string, error) {
	var v string
	err := s.read.QueryRowContext(ctx, `SELECT value FROM gateway_cursors WHERE platform = ? AND name = ?`, s.text(platform), s.text(name)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway: read the %s cursor of %s: %w", name, platform, err)
	}
	return s.untext(v), nil
}

// SaveCursor records that platform's inbound stream name was read up to
// value. The platform saves it only after every event before it was
// taken, so a crash between the two offers those events again and the
// gateway's dedupe answers them once.
func (s *Store) SaveCursor(ctx context.Context, platform, name, value string) error {
	err := s.writeTx(ctx, "save cursor", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_cursors (platform, name, value, updated_at) VALUES (?, ?, ?, ?)
ON CONFLICT (platform, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			s.text(platform), s.text(name), s.text(value), micros(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: save the %s cursor of %s: %w", name, platform, err)
	}
	return nil
}
