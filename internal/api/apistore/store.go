// Package apistore keeps the API's requests sent with an
// Idempotency-Key (api.Requests) in the database every replica shares,
// state.db or PostgreSQL, so a client's retry is answered once whichever
// replica it reaches. Rows older than a day are dropped as new keys come:
// a retry comes within minutes, and a key a day old is a new request.
package apistore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/sqldb"
)

var _ api.Requests = (*Store)(nil)

// keepFor is how long a request is remembered.
const keepFor = 24 * time.Hour

// Store is the API's requests in one database.
type Store struct{ db sqldb.DB }

// New returns the store over db, whose Open brought its table up to date.
func New(db sqldb.DB) *Store { return &Store{db: db} }

const requestColumns = `fingerprint, holder, lease_until, session_id, base_id, done, status, body`

// Claim takes a new key, or an unfinished one whose holder's lease
// lapsed; one conditional statement decides each, so of replicas
// claiming one key at once exactly one takes it.
func (s *Store) Claim(ctx context.Context, c api.RequestClaim) (api.Request, bool, error) {
	var (
		rec  api.Request
		took bool
	)
	err := s.db.WriteTx(ctx, "claim request "+c.Key, func(tx *sql.Tx) error {
		took = false
		if _, err := tx.ExecContext(ctx, `DELETE FROM api_requests WHERE created_at < ?`, c.Now.Add(-keepFor).UnixMicro()); err != nil {
			return err
		}
		var k string
		err := tx.QueryRowContext(ctx, `INSERT INTO api_requests (caller, key, fingerprint, holder, lease_until, created_at)
VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (caller, key) DO NOTHING RETURNING key`,
			c.Caller, c.Key, c.Fingerprint, c.Holder, c.Until.UnixMicro(), c.Now.UnixMicro()).Scan(&k)
		switch {
		case err == nil:
			took = true
			rec = api.Request{Fingerprint: c.Fingerprint, Holder: c.Holder, Until: c.Until, BaseID: -1}
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		rec, err = scan(tx.QueryRowContext(ctx, `UPDATE api_requests SET holder = ?, lease_until = ?
WHERE caller = ? AND key = ? AND done = 0 AND lease_until <= ? AND fingerprint = ?
RETURNING `+requestColumns, c.Holder, c.Until.UnixMicro(), c.Caller, c.Key, c.Now.UnixMicro(), c.Fingerprint))
		if err == nil {
			took = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		rec, err = scan(tx.QueryRowContext(ctx, `SELECT `+requestColumns+` FROM api_requests WHERE caller = ? AND key = ?`, c.Caller, c.Key))
		return err
	})
	if err != nil {
		return api.Request{}, false, fmt.Errorf("api requests: %w", err)
	}
	return rec, took, nil
}

// scan reads one row of requestColumns.
func scan(row *sql.Row) (api.Request, error) {
	var (
		r            api.Request
		until        int64
		done, status int64
	)
	if err := row.Scan(&r.Fingerprint, &r.Holder, &until, &r.SessionID, &r.BaseID, &done, &status, &r.Answer); err != nil {
		return api.Request{}, err
	}
	r.Until, r.Done, r.Status = time.UnixMicro(until).UTC(), done != 0, int(status)
	return r, nil
}

// Renew extends holder's claim while the request is unfinished.
func (s *Store) Renew(ctx context.Context, caller, key, holder string, until time.Time) (bool, error) {
	n, err := s.exec(ctx, "renew request "+key, `UPDATE api_requests SET lease_until = ?
WHERE caller = ? AND key = ? AND holder = ? AND done = 0`, until.UnixMicro(), caller, key, holder)
	return n == 1, err
}

// Begin records the session and the message the request began after.
func (s *Store) Begin(ctx context.Context, caller, key, holder, sessionID string, baseID int64) error {
	n, err := s.exec(ctx, "begin request "+key, `UPDATE api_requests SET session_id = ?, base_id = ?
WHERE caller = ? AND key = ? AND holder = ? AND done = 0`, sessionID, baseID, caller, key, holder)
	if err == nil && n == 0 {
		err = fmt.Errorf("api requests: request %s was taken over by another replica", key)
	}
	return err
}

// Finish stores the answer, if holder still holds the request.
func (s *Store) Finish(ctx context.Context, caller, key, holder string, status int, answer []byte) error {
	_, err := s.exec(ctx, "finish request "+key, `UPDATE api_requests SET done = 1, status = ?, body = ?
WHERE caller = ? AND key = ? AND holder = ? AND done = 0`, status, answer, caller, key, holder)
	return err
}

// Release ends holder's lease at once.
func (s *Store) Release(ctx context.Context, caller, key, holder string) error {
	_, err := s.exec(ctx, "release request "+key, `UPDATE api_requests SET lease_until = 0
WHERE caller = ? AND key = ? AND holder = ? AND done = 0`, caller, key, holder)
	return err
}

// exec runs one write and returns the rows it changed.
func (s *Store) exec(ctx context.Context, what, q string, args ...any) (int64, error) {
	var n int64
	err := s.db.WriteTx(ctx, what, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("api requests: %w", err)
	}
	return n, nil
}
