package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The email gateway reads a mailbox by UID and answers in threads; both
// must survive a restart, or it would answer old mail again and send
// replies that no mail program files in their thread.

// MailCursor returns where reading mailbox stopped: the mailbox's
// UIDVALIDITY when it was read and the last UID taken; zeros when it was
// never read.
func (s *Store) MailCursor(ctx context.Context, mailbox string) (validity, last uint32, err error) {
	err = s.read.QueryRowContext(ctx, `SELECT uid_validity, last_uid FROM gateway_mail_cursors WHERE mailbox = ?`, s.text(mailbox)).Scan(&validity, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("gateway: mail cursor of %s: %w", mailbox, err)
	}
	return validity, last, nil
}

// SetMailCursor records where reading mailbox stopped.
func (s *Store) SetMailCursor(ctx context.Context, mailbox string, validity, last uint32) error {
	return s.writeTx(ctx, "record mail cursor", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_mail_cursors (mailbox, uid_validity, last_uid) VALUES (?, ?, ?)
ON CONFLICT (mailbox) DO UPDATE SET uid_validity = excluded.uid_validity, last_uid = excluded.last_uid`, s.text(mailbox), validity, last)
		return err
	})
}

// MailThread is what a reply in a mail thread needs: the subject, the
// Message-ID of the thread's last message (the reply's In-Reply-To) and
// that message's References.
type MailThread struct {
	Subject    string
	LastID     string
	References string
}

// MailThread returns thread of chat (a correspondent's address), and
// whether it is known.
func (s *Store) MailThread(ctx context.Context, chat, thread string) (MailThread, bool, error) {
	var t MailThread
	err := s.read.QueryRowContext(ctx, `SELECT subject, last_id, refs FROM gateway_mail_threads WHERE chat = ? AND thread = ?`,
		s.text(chat), s.text(thread)).Scan(&t.Subject, &t.LastID, &t.References)
	if errors.Is(err, sql.ErrNoRows) {
		return MailThread{}, false, nil
	}
	if err != nil {
		return MailThread{}, false, fmt.Errorf("gateway: mail thread %s of %s: %w", thread, chat, err)
	}
	return MailThread{Subject: s.untext(t.Subject), LastID: s.untext(t.LastID), References: s.untext(t.References)}, true, nil
}

// SetMailThread records the last message of thread of chat.
func (s *Store) SetMailThread(ctx context.Context, chat, thread string, t MailThread) error {
	now := micros(s.now())
	return s.writeTx(ctx, "record mail thread", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_mail_threads (chat, thread, subject, last_id, refs, updated_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (chat, thread) DO UPDATE SET subject = excluded.subject, last_id = excluded.last_id, refs = excluded.refs, updated_at = excluded.updated_at`,
			s.text(chat), s.text(thread), s.text(t.Subject), s.text(t.LastID), s.text(t.References), now)
		return err
	})
}
