package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SetChatModel records the model a chat chose (/model NAME); an empty
// model goes back to the configured one. It is kept by the chat's
// session key rather than by session, so it outlasts /new and resets.
func (s *Store) SetChatModel(ctx context.Context, key, model string) error {
	if key == "" {
		return errors.New("gateway: set chat model: empty session key")
	}
	err := s.writeTx(ctx, "set chat model", func(tx *sql.Tx) error {
		if model == "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM gateway_chat_models WHERE key = ?`, key)
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_chat_models (key, model, set_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET model = excluded.model, set_at = excluded.set_at`, key, model, micros(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: set the model of %s to %q: %w", key, model, err)
	}
	return nil
}

// ChatModel returns the model a chat chose, "" for the configured one.
func (s *Store) ChatModel(ctx context.Context, key string) (string, error) {
	var model string
	err := s.read.QueryRowContext(ctx, `SELECT model FROM gateway_chat_models WHERE key = ?`, key).Scan(&model)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway: the model of %s: %w", key, err)
	}
	return model, nil
}
