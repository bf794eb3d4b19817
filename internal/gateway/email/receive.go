package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/hermes-go/hermes/internal/gateway"
)

// maxMailBytes is the largest mail the adapter reads by default; bigger
// ones stay unread in the mailbox, so one huge mail cannot take the
// process's memory.
const maxMailBytes = 48 << 20

// The backoff after a lost session doubles from minBackoff to maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = 5 * time.Minute
)

// Receive keeps one IMAP session to the mailbox, reconnecting after a
// failure, and hands every new mail to deliver in the order it arrived.
// One session rather than a connection per poll, because providers
// throttle accounts that log in again and again. It returns when ctx
// ends.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		connected, err := a.session(ctx, deliver)
		if ctx.Err() != nil {
			break
		}
		if connected {
			backoff = 0
		}
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		a.log.Warn("email: the IMAP session ended; connecting again", "err", err, "retry_in", backoff)
		if a.clock.Sleep(ctx, backoff) != nil {
			break
		}
	}
	return nil
}

// session logs in, selects the mailbox and reads it until the connection
// fails. connected says whether it got as far as the mailbox.
func (a *Adapter) session(ctx context.Context, deliver func(context.Context, gateway.Event) error) (connected bool, err error) {
	// news is told when the server announces new mail.
	news := make(chan struct{}, 1)
	c, err := a.dialIMAP(ctx, news)
	if err != nil {
		return false, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := c.Login(a.o.Username, a.o.Password).Wait(); err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) && ie.Type == imap.StatusResponseTypeNo {
			a.log.Error("email: the IMAP server refused the login; check gateway.email.username and password (Gmail and Outlook want an app password)", "username", a.o.Username, "err", err)
		}
		return false, fmt.Errorf("imap login as %s: %w", a.o.Username, err)
	}
	sel, err := c.Select(a.o.Mailbox, nil).Wait()
	if err != nil {
		return false, fmt.Errorf("imap select %s: %w", a.o.Mailbox, err)
	}
	last, err := a.cursor(ctx, sel.UIDValidity)
	if err != nil {
		return false, err
	}
	a.log.Info("email: reading the mailbox", "mailbox", a.o.Mailbox, "idle", c.Caps().Has(imap.CapIdle))
	for {
		if last, err = a.drain(ctx, c, sel.UIDValidity, last, deliver); err != nil {
			return true, err
		}
		if err := a.wait(ctx, c, news); err != nil {
			return true, err
		}
	}
}

// cursor returns the last UID taken from the mailbox. A new UIDVALIDITY
// means the server numbered the mailbox afresh: reading starts over from
// the unread mail, and what was answered already is known by its
// Message-ID (the gateway's Seen), so it is not answered again.
func (a *Adapter) cursor(ctx context.Context, validity uint32) (imap.UID, error) {
	stored, last, err := a.state.Cursor(ctx, a.cursorKey())
	if err != nil {
		return 0, err
	}
	if stored == validity {
		return imap.UID(last), nil
	}
	if stored != 0 {
		a.log.Warn("email: the mailbox's UIDVALIDITY changed; reading its unread mail afresh", "mailbox", a.o.Mailbox, "was", stored, "now", validity)
	}
	return 0, a.state.SetCursor(ctx, a.cursorKey(), validity, 0)
}

// drain takes every unread mail above last, in UID order, and returns the
// new last UID. A mail deliver refused stops the drain: it stays unread,
// the cursor before it, and is offered again.
func (a *Adapter) drain(ctx context.Context, c *imapclient.Client, validity uint32, last imap.UID, deliver func(context.Context, gateway.Event) error) (imap.UID, error) {
	crit := &imap.SearchCriteria{UID: []imap.UIDSet{{imap.UIDRange{Start: last + 1, Stop: 0}}}, NotFlag: []imap.Flag{imap.FlagSeen}}
	found, err := c.UIDSearch(crit, nil).Wait()
	if err != nil {
		return last, fmt.Errorf("imap search: %w", err)
	}
	uids := found.AllUIDs()
	slices.Sort(uids)
	for _, uid := range uids {
		if uid <= last { // "n:*" always holds the highest UID
			continue
		}
		taken, err := a.fetchOne(ctx, c, uid, deliver)
		if err != nil {
			return last, err
		}
		if taken {
			// Read only once delivered: a crash before leaves it unread
			// and above the cursor, to be offered again.
			flags := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
			if err := c.Store(imap.UIDSetNum(uid), flags, nil).Close(); err != nil {
				return last, fmt.Errorf("imap store \\Seen on %d: %w", uid, err)
			}
		}
		last = uid
		if err := a.state.SetCursor(ctx, a.cursorKey(), validity, uint32(last)); err != nil {
			return last, err
		}
	}
	return last, nil
}

// fetchOne fetches mail uid with BODY.PEEK[] (a plain fetch would mark it
// read before it was delivered) and hands it on; taken says whether it
// went to deliver.
func (a *Adapter) fetchOne(ctx context.Context, c *imapclient.Client, uid imap.UID, deliver func(context.Context, gateway.Event) error) (bool, error) {
	// The size first: a mail too big to hold is left for a person.
	sized, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, RFC822Size: true}).Collect()
	if err != nil {
		return false, fmt.Errorf("imap fetch %d: %w", uid, err)
	}
	if len(sized) == 1 && sized[0].RFC822Size > a.o.MaxMailBytes {
		a.log.Warn("email: a mail too big to read is left unread", "uid", uid, "bytes", sized[0].RFC822Size, "limit", a.o.MaxMailBytes)
		return false, nil
	}
	section := &imap.FetchItemBodySection{Peek: true}
	msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}}).Collect()
	if err != nil {
		return false, fmt.Errorf("imap fetch %d: %w", uid, err)
	}
	if len(msgs) == 0 {
		return false, nil // expunged meanwhile
	}
	ev, ok, err := a.event(ctx, msgs[0].FindBodySection(section))
	if err != nil {
		return false, fmt.Errorf("mail %d: %w", uid, err)
	}
	if !ok {
		return false, nil
	}
	if err := deliver(ctx, ev); err != nil {
		return false, fmt.Errorf("mail %s not taken: %w", ev.ID, err)
	}
	return true, nil
}

// wait returns when there may be new mail: the server said so while
// idling, or PollEvery passed (servers without IDLE, and a safety net
// for those with it). The IMAP client re-issues IDLE every 28 minutes,
// before servers drop an idle session at 30.
func (a *Adapter) wait(ctx context.Context, c *imapclient.Client, news <-chan struct{}) error {
	timer := a.clock.NewTimer(a.o.PollEvery)
	defer timer.Stop()
	var idle *imapclient.IdleCommand
	if c.Caps().Has(imap.CapIdle) {
		var err error
		if idle, err = c.Idle(); err != nil {
			return fmt.Errorf("imap idle: %w", err)
		}
	}
	select {
	case <-news:
	case <-timer.C():
	case <-ctx.Done():
	case <-c.Closed():
	}
	if idle != nil {
		if err := idle.Close(); err != nil {
			return fmt.Errorf("imap idle: %w", err)
		}
		if err := idle.Wait(); err != nil {
			return fmt.Errorf("imap idle: %w", err)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	select {
	case <-c.Closed():
		return fmt.Errorf("imap: the server closed the connection")
	default:
		return nil
	}
}

// dialIMAP connects as Options.IMAP says; news is told of every EXISTS
// the server sends.
func (a *Adapter) dialIMAP(ctx context.Context, news chan<- struct{}) (*imapclient.Client, error) {
	d := net.Dialer{Timeout: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", a.o.IMAP.Addr)
	if err != nil {
		return nil, fmt.Errorf("imap dial %s: %w", a.o.IMAP.Addr, err)
	}
	opts := &imapclient.Options{
		TLSConfig: a.tlsConfig(a.o.IMAP.Addr),
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				select {
				case news <- struct{}{}:
				default:
				}
			}
		}},
	}
	switch a.o.IMAP.TLS {
	case ImplicitTLS:
		return imapclient.New(tls.Client(conn, opts.TLSConfig), opts), nil
	case StartTLS:
		c, err := imapclient.NewStartTLS(conn, opts)
		if err != nil {
			conn.Close()
			return nil, fmt.Errorf("imap starttls %s: %w", a.o.IMAP.Addr, err)
		}
		return c, nil
	}
	return imapclient.New(conn, opts), nil
}
