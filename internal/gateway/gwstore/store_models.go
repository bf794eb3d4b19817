package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// chatSetting is a per-chat choice kept by the chat's session key rather
// than by session, so it outlasts /new and resets: its table and column.
type chatSetting struct {
	table, column string
}

// The per-chat choices: the model (/model NAME) and the role agent
// (/agent NAME).
var (
	chatModel = chatSetting{"gateway_chat_models", "model"}
	chatAgent = chatSetting{"gateway_chat_agents", "agent"}
)

// SetChatModel records the model a chat chose (/model NAME); an empty
// model goes back to the configured one.
func (s *Store) SetChatModel(ctx context.Context, key, model string) error {
	return s.setChat(ctx, chatModel, key, model)
}

// ChatModel returns the model a chat chose, "" for the configured one.
func (s *Store) ChatModel(ctx context.Context, key string) (string, error) {
	return s.chat(ctx, chatModel, key)
}

// SetChatAgent records the role agent a chat is bound to (/agent NAME);
// an empty agent unbinds it.
func (s *Store) SetChatAgent(ctx context.Context, key, agent string) error {
	return s.setChat(ctx, chatAgent, key, agent)
}

// ChatAgent returns the role agent a chat is bound to, "" for none.
func (s *Store) ChatAgent(ctx context.Context, key string) (string, error) {
	return s.chat(ctx, chatAgent, key)
}

// setChat records chat key's value of setting c; an empty value removes
// it.
func (s *Store) setChat(ctx context.Context, c chatSetting, key, value string) error {
	if key == "" {
		return fmt.Errorf("gateway: set chat %s: empty session key", c.column)
	}
	err := s.writeTx(ctx, "set chat "+c.column, func(tx *sql.Tx) error {
		if value == "" {
			_, err := tx.ExecContext(ctx, `DELETE FROM `+c.table+` WHERE key = ?`, s.text(key))
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO `+c.table+` (key, `+c.column+`, set_at) VALUES (?, ?, ?)
ON CONFLICT (key) DO UPDATE SET `+c.column+` = excluded.`+c.column+`, set_at = excluded.set_at`, s.text(key), s.text(value), micros(s.now()))
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: set the %s of %s to %q: %w", c.column, key, value, err)
	}
	return nil
}

// chat returns chat key's value of setting c, "" for none.
func (s *Store) chat(ctx context.Context, c chatSetting, key string) (string, error) {
	var value string
	err := s.read.QueryRowContext(ctx, `SELECT `+c.column+` FROM `+c.table+` WHERE key = ?`, s.text(key)).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway: the %s of %s: %w", c.column, key, err)
	}
	return s.untext(value), nil
}
