package gwstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ResetMode says when a chat's session starts over by itself.
type ResetMode string

// The reset modes, as configuration names them.
const (
	// ResetNone keeps a chat's session until it is reset by hand (/new).
	ResetNone ResetMode = "none"
	// ResetIdle starts over after the chat was quiet for Idle.
	ResetIdle ResetMode = "idle"
	// ResetDaily starts over once a day, at AtHour in Zone.
	ResetDaily ResetMode = "daily"
)

// ResetPolicy is when a chat's session starts over. The zero value is
// ResetNone.
type ResetPolicy struct {
	Mode ResetMode
	// Idle is the quiet time after which an idle session starts over.
	Idle time.Duration
	// AtHour is the hour of the day (0-23) a daily session starts over,
	// on Zone's wall clock, so it stays at that hour across daylight
	// saving changes.
	AtHour int
	// Zone is the time zone of AtHour; nil means UTC.
	Zone *time.Location
}

// Validate reports a policy that cannot be applied, naming the field,
// its value and what is accepted.
func (p ResetPolicy) Validate() error {
	switch p.Mode {
	case "", ResetNone:
	case ResetIdle:
		if p.Idle < time.Minute {
			return fmt.Errorf("gateway: session reset idle time %s: with mode idle it must be at least one minute", p.Idle)
		}
	case ResetDaily:
		if p.AtHour < 0 || p.AtHour > 23 {
			return fmt.Errorf("gateway: session reset hour %d: with mode daily it is an hour from 0 to 23", p.AtHour)
		}
	default:
		return fmt.Errorf("gateway: session reset mode %q: accepted are none, idle and daily", p.Mode)
	}
	return nil
}

// expired reports whether a session last active at last has to start
// over at now.
func (p ResetPolicy) expired(last, now time.Time) bool {
	switch p.Mode {
	case ResetIdle:
		return now.Sub(last) >= p.Idle
	case ResetDaily:
		return last.Before(p.lastReset(now))
	}
	return false
}

// lastReset is the latest daily reset at or before now: AtHour today on
// the zone's wall clock, or yesterday when that is still to come.
// time.Date moves an hour that a daylight saving change skips to the
// hour after, so such a day still has its reset.
func (p ResetPolicy) lastReset(now time.Time) time.Time {
	zone := p.Zone
	if zone == nil {
		zone = time.UTC
	}
	l := now.In(zone)
	at := time.Date(l.Year(), l.Month(), l.Day(), p.AtHour, 0, 0, 0, zone)
	if at.After(now) {
		at = time.Date(l.Year(), l.Month(), l.Day()-1, p.AtHour, 0, 0, 0, zone)
	}
	return at
}

// touchEvery is how stale a session's last_active may be before Resolve
// writes it again: a minute, and for an idle reset a tenth of its idle
// time, so that a chat is never started afresh more than that early.
func (p ResetPolicy) touchEvery() time.Duration {
	if p.Mode == ResetIdle {
		return min(time.Minute, p.Idle/10)
	}
	return time.Minute
}

// Resolve returns the hermes session bound to the session key at now and
// marks it active. An empty sessionID means there is none to continue:
// the caller starts a session and Binds it. reset is set when there was
// one and policy ended it, so the chat can be told it starts afresh; the
// binding is then dropped, and reset is reported once.
func (s *Store) Resolve(ctx context.Context, key string, now time.Time, policy ResetPolicy) (sessionID string, reset bool, err error) {
	sessionID, ended, err := s.ResolveEnded(ctx, key, now, policy)
	return sessionID, ended != "", err
}

// ResolveEnded is Resolve that names the session the reset policy ended,
// "" when it ended none, so the caller can close it (its lasting facts
// are extracted then).
func (s *Store) ResolveEnded(ctx context.Context, key string, now time.Time, policy ResetPolicy) (sessionID, ended string, err error) {
	if key == "" {
		return "", "", errors.New("gateway: resolve session: empty session key")
	}
	if err := policy.Validate(); err != nil {
		return "", "", err
	}
	// Most messages continue a chat active a moment ago: that needs no
	// write, which would wait for the one writer behind every other
	// chat's. last_active is kept only as closely as the policy needs.
	var id string
	var last int64
	err = s.read.QueryRowContext(ctx, `SELECT session_id, last_active FROM gateway_sessions WHERE key = ?`, s.text(key)).Scan(&id, &last)
	if err == nil && !policy.expired(fromMicros(last), now) && now.Sub(fromMicros(last)) < policy.touchEvery() {
		return s.untext(id), "", nil
	}
	err = s.writeTx(ctx, "resolve session", func(tx *sql.Tx) error {
		sessionID, ended = "", ""
		var id string
		var last int64
		// Locked until the end: a second replica resolving the same
		// expired chat waits, then finds it gone, so the reset is
		// reported once.
		err := tx.QueryRowContext(ctx, `SELECT session_id, last_active FROM gateway_sessions WHERE key = ?`+s.forUpdate(), s.text(key)).Scan(&id, &last)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		case policy.expired(fromMicros(last), now):
			ended = s.untext(id)
			_, err := tx.ExecContext(ctx, `DELETE FROM gateway_sessions WHERE key = ?`, s.text(key))
			return err
		}
		sessionID = s.untext(id)
		_, err = tx.ExecContext(ctx, `UPDATE gateway_sessions SET last_active = ? WHERE key = ? AND last_active < ?`, micros(now), s.text(key), micros(now))
		return err
	})
	if err != nil {
		return "", "", fmt.Errorf("gateway: resolve session %s: %w", key, err)
	}
	return sessionID, ended, nil
}

// Bind binds the session key to the hermes session sessionID, created
// and active now, replacing any earlier binding.
func (s *Store) Bind(ctx context.Context, key, sessionID string) error {
	if key == "" || sessionID == "" {
		return fmt.Errorf("gateway: bind session: key %q and session id %q must both be set", key, sessionID)
	}
	now := micros(s.now())
	err := s.writeTx(ctx, "bind session", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO gateway_sessions (key, session_id, created_at, last_active) VALUES (?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, created_at = excluded.created_at, last_active = excluded.last_active`,
			s.text(key), s.text(sessionID), now, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway: bind session %s to %s: %w", key, sessionID, err)
	}
	return nil
}

// BindNew binds the session key to the hermes session sessionID, created
// and active now, unless the key is bound already, and returns the
// session the key is bound to afterwards: sessionID, or the session
// another process or replica bound first, which the chat continues in.
// Two replicas that each started a session for a chat's first messages
// thus agree on one, where Bind would leave whichever wrote last.
func (s *Store) BindNew(ctx context.Context, key, sessionID string) (string, error) {
	if key == "" || sessionID == "" {
		return "", fmt.Errorf("gateway: bind new session: key %q and session id %q must both be set", key, sessionID)
	}
	now := micros(s.now())
	var bound string
	err := s.writeTx(ctx, "bind new session", func(tx *sql.Tx) error {
		// The no-op update of a conflict locks and returns the row in
		// force, in one statement on both databases.
		return tx.QueryRowContext(ctx, `INSERT INTO gateway_sessions (key, session_id, created_at, last_active) VALUES (?, ?, ?, ?)
ON CONFLICT (key) DO UPDATE SET session_id = gateway_sessions.session_id RETURNING session_id`,
			s.text(key), s.text(sessionID), now, now).Scan(&bound)
	})
	if err != nil {
		return "", fmt.Errorf("gateway: bind new session %s to %s: %w", key, sessionID, err)
	}
	return s.untext(bound), nil
}

// Forget drops the session key's binding, so its next message starts a
// new session (/new).
func (s *Store) Forget(ctx context.Context, key string) error {
	_, err := s.ForgetEnded(ctx, key)
	return err
}

// ForgetEnded is Forget that names the session the key was bound to, ""
// when none, so the caller can close it (its lasting facts are extracted
// then). Reading and dropping the binding are one statement: a replica
// binding the key meanwhile is not closed in its place.
func (s *Store) ForgetEnded(ctx context.Context, key string) (string, error) {
	var ended string
	err := s.writeTx(ctx, "forget session", func(tx *sql.Tx) error {
		ended = ""
		err := tx.QueryRowContext(ctx, `DELETE FROM gateway_sessions WHERE key = ? RETURNING session_id`, s.text(key)).Scan(&ended)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("gateway: forget session %s: %w", key, err)
	}
	return s.untext(ended), nil
}
