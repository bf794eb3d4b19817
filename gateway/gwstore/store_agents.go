package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SetChatAgent records the role agent a chat is bound to (/agent NAME);
// an empty agent unbinds it. It is kept by the chat's session key, so it
// outlasts /new and resets.
func (s *Store) SetChatAgent(ctx context.Context, key, agent string) error {
	if key == "" {
		return errors.New("gateway: set chat agent: empty session key")
	}
	err := s.writeTx(ctx, "set chat agent", func(tx *sql.Tx) error {
		if agent == "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM gateway_chat_agents WHERE key = ?`, key)
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_chat_agents (key, agent, set_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET agent = excluded.agent, set_at = excluded.set_at`, key, agent, micros(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: set the agent of %s to %q: %w", key, agent, err)
	}
	return nil
}

// ChatAgent returns the role agent a chat is bound to, "" for none.
func (s *Store) ChatAgent(ctx context.Context, key string) (string, error) {
	var agent string
	err := s.read.QueryRowContext(ctx, `SELECT agent FROM gateway_chat_agents WHERE key = ?`, key).Scan(&agent)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway: the agent of %s: %w", key, err)
	}
	return agent, nil
}
