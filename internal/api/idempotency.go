package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// IdempotencyHeader names the key a client sends so that a request it
// retries (after a timeout, a dropped connection, a replica that died)
// runs once: the first request with a key runs the turn, and every later
// one with the same key and body gets the first one's answer instead of
// a second turn.
const IdempotencyHeader = "Idempotency-Key"

// maxIdempotencyKey bounds a key's length.
const maxIdempotencyKey = 255

// requestLease is how long a claim on a request lasts unrenewed; the
// replica running it renews it every third of that, so one that died
// is taken over a lease later.
const requestLease = 30 * time.Second

// Requests remembers requests sent with an Idempotency-Key, in the
// database the replicas share, so a retry reaching another replica is
// still answered once.
type Requests interface {
	// Claim takes the request for c.Holder until c.Until when its key is
	// new, or when the holder of an unfinished one let its lease lapse
	// (a replica that died running it). It returns the request as it
	// stands and whether it was taken.
	Claim(ctx context.Context, c RequestClaim) (Request, bool, error)
	// Renew extends holder's claim; false means holder lost it.
	Renew(ctx context.Context, caller, key, holder string, until time.Time) (bool, error)
	// Begin records the session the request's turn runs in and the last
	// message before it, so a takeover can rewind what a dead attempt
	// stored.
	Begin(ctx context.Context, caller, key, holder, sessionID string, baseID int64) error
	// Finish stores the answer retries get back.
	Finish(ctx context.Context, caller, key, holder string, status int, answer []byte) error
	// Release lets the request be claimed again at once: it failed in a
	// way a retry should run again.
	Release(ctx context.Context, caller, key, holder string) error
}

// RequestClaim asks for a request.
type RequestClaim struct {
	Caller, Key, Fingerprint, Holder string
	Now, Until                       time.Time
}

// Request is a remembered request.
type Request struct {
	Fingerprint, Holder string
	Until               time.Time
	// SessionID and BaseID are what Begin recorded; BaseID is -1 before.
	SessionID string
	BaseID    int64
	Done      bool
	Status    int
	Answer    []byte
}

// storedAnswer is a finished request's answer as Requests keeps it.
type storedAnswer struct {
	Session     string `json:"session,omitempty"`
	ContentType string `json:"content_type,omitempty"`
	Body        []byte `json:"body"`
}

// idempotent runs h once per Idempotency-Key (see IdempotencyHeader);
// requests without one, or on a server without Requests, go straight
// to h.
func (s *Server) idempotent(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimSpace(r.Header.Get(IdempotencyHeader))
		if key == "" || s.opt.Requests == nil {
			h(w, r)
			return
		}
		body, bad := idempotentBody(r, key)
		if bad != nil {
			writeError(w, bad.status, "invalid_request_error", bad.param, bad.msg)
			return
		}
		sum := sha256.Sum256([]byte(r.URL.Path + "\x00" + r.Header.Get(SessionHeader) + "\x00" + string(body)))
		cl := &claim{s: s, caller: CallerFrom(r.Context()).User, key: key, holder: s.opt.Holder}
		now := s.opt.Clock.Now()
		rec, took, err := s.opt.Requests.Claim(r.Context(), RequestClaim{Caller: cl.caller, Key: key,
			Fingerprint: hex.EncodeToString(sum[:]), Holder: cl.holder, Now: now, Until: now.Add(requestLease)})
		switch {
		case err != nil:
			s.opt.Logger.Error("api: idempotency key not claimed", "error", err)
			writeError(w, http.StatusServiceUnavailable, "server_error", "", "the request could not be recorded; retry with the same Idempotency-Key")
			return
		case !took && rec.Fingerprint != hex.EncodeToString(sum[:]):
			writeError(w, http.StatusUnprocessableEntity, "invalid_request_error", "Idempotency-Key",
				fmt.Sprintf("Idempotency-Key %q was sent before with a different request; use a new key for a new request", key))
			return
		case !took && rec.Done:
			replay(w, rec)
			return
		case !took:
			w.Header().Set("Retry-After", "2")
			writeError(w, http.StatusConflict, "invalid_request_error", "Idempotency-Key",
				fmt.Sprintf("a request with Idempotency-Key %q is still running; retry after it ends to get its answer", key))
			return
		}
		cl.rec = rec
		r.Body = io.NopCloser(bytes.NewReader(body))
		cw := &captureWriter{ResponseWriter: w, status: http.StatusOK}
		stop := cl.keep(r.Context())
		h(cw, r.WithContext(context.WithValue(r.Context(), claimKey{}, cl)))
		stop()
		cl.settle(cw)
	}
}

// idempotentBody reads a request body a key came with, refusing a key
// too long and a streamed request, whose answer cannot be replayed.
func idempotentBody(r *http.Request, key string) ([]byte, *badRequest) {
	if len(key) > maxIdempotencyKey {
		return nil, &badRequest{http.StatusBadRequest, "Idempotency-Key", fmt.Sprintf("Idempotency-Key: %d characters is too long; send at most %d", len(key), maxIdempotencyKey)}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &badRequest{http.StatusRequestEntityTooLarge, "", fmt.Sprintf("the request body is over %d bytes", tooBig.Limit)}
		}
		return nil, &badRequest{http.StatusBadRequest, "", "the request body could not be read: " + err.Error()}
	}
	var peek struct {
		Stream bool `json:"stream"`
	}
	if json.Unmarshal(body, &peek) == nil && peek.Stream {
		return nil, &badRequest{http.StatusBadRequest, "Idempotency-Key", "Idempotency-Key is honoured for requests with stream: false only; a streamed answer cannot be replayed"}
	}
	return body, nil
}

// replay writes a finished request's stored answer.
func replay(w http.ResponseWriter, rec Request) {
	var a storedAnswer
	if err := json.Unmarshal(rec.Answer, &a); err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "", "the stored answer of this Idempotency-Key is unreadable")
		return
	}
	if a.Session != "" {
		w.Header().Set(SessionHeader, a.Session)
	}
	if a.ContentType != "" {
		w.Header().Set("Content-Type", a.ContentType)
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(rec.Status)
	w.Write(a.Body)
}

// captureWriter keeps what a handler wrote, to store it as the answer.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captureWriter) WriteHeader(status int) {
	c.status = status
	c.ResponseWriter.WriteHeader(status)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}
