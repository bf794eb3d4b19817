package app

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/email"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
)

// emailPlatform builds the email adapter of gateway.email, its cursor and
// threads kept in state.db.
func (a *App) emailPlatform(e config.EmailGateway) (*email.Adapter, error) {
	p, err := email.New(email.Options{
		IMAP:     email.Server{Addr: e.IMAP.Addr, TLS: email.TLS(e.IMAP.TLS)},
		SMTP:     email.Server{Addr: e.SMTP.Addr, TLS: email.TLS(e.SMTP.TLS)},
		Username: e.Username, Password: string(e.Password), Address: e.Address,
		Mailbox: e.Mailbox, PollEvery: e.PollEvery, AuthservID: e.AuthservID,
		State:  mailState{a.Gateway},
		Logger: a.Log, Clock: a.opts.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway.email: %w", err)
	}
	return p, nil
}

// mailState keeps the email adapter's state in the gateway's tables.
type mailState struct{ s *gwstore.Store }

func (m mailState) Cursor(ctx context.Context, mailbox string) (uint32, uint32, error) {
	return m.s.MailCursor(ctx, mailbox)
}

func (m mailState) SetCursor(ctx context.Context, mailbox string, validity, last uint32) error {
	return m.s.SetMailCursor(ctx, mailbox, validity, last)
}

func (m mailState) Thread(ctx context.Context, chat, thread string) (email.Thread, bool, error) {
	t, ok, err := m.s.MailThread(ctx, chat, thread)
	return email.Thread(t), ok, err
}

func (m mailState) SetThread(ctx context.Context, chat, thread string, t email.Thread) error {
	return m.s.SetMailThread(ctx, chat, thread, gwstore.MailThread(t))
}

var _ email.State = mailState{}

// mayMail reports whether hermes may send mail to chat's address: only
// to people allowed to talk to it (never a pairing code by mail).
func mayMail(ctx context.Context, auth gateway.Authorizer, chat gateway.Chat) bool {
	ok, _, err := auth.Allowed(ctx, "email", chat.ID)
	return err == nil && ok
}
