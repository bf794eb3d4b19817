package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/session"
)

// Running lists the sessions whose lease is held at now: those a turn
// is running in, in this process or another one on the same state.db.
func (s *Store) Running(ctx context.Context, now time.Time) ([]session.RunningTurn, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT session_id, holder, expires_at FROM session_leases
WHERE expires_at > ? ORDER BY session_id`, toMicros(now))
	if err != nil {
		return nil, fmt.Errorf("sqlite: running turns: %w", err)
	}
	out, err := session.ScanRunning(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: running turns: %w", err)
	}
	return out, nil
}

// LastMessages returns the newest n messages of a session, in order:
// what a page showing the latest turns needs of a session of any length.
func (s *Store) LastMessages(ctx context.Context, sessionID string, n int) ([]session.Message, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT * FROM (SELECT `+messageCols+` FROM messages
WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, sessionID, max(n, 0))
	if err != nil {
		return nil, fmt.Errorf("sqlite: last messages of session %s: %w", sessionID, err)
	}
	msgs, err := scanMessages(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: last messages of session %s: %w", sessionID, err)
	}
	return msgs, nil
}
