package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The backoff after a failed sync or delivery doubles from minBackoff to
// maxBackoff.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
)

// Receive logs in, then long-polls /sync from the saved position. On the
// first run there is none: one sync without waiting learns where "now"
// is, and the history it returns is not answered. A batch's position is
// saved only after deliver took every event in it, so an event deliver
// refused, or one in a sync cut off by a dropped connection, is offered
// again (and the gateway's dedupe answers it once). It returns when ctx
// ends, or when the homeserver refuses the credentials.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	backoff := time.Duration(0)
	wait := func(reason string, err error) error {
		backoff = min(max(2*backoff, minBackoff), maxBackoff)
		var ae *apiError
		if errors.As(err, &ae) && ae.rateLimited() {
			backoff = max(backoff, ae.RetryAfter)
		}
		a.log.Warn(reason, "err", err, "retry_in", backoff)
		return a.clock.Sleep(ctx, backoff)
	}
	for {
		err := a.login(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if fatal(err) {
			return err
		}
		if wait("matrix: login failed", err) != nil {
			return nil
		}
	}
	pos := a.loadCursor(ctx)
	for ctx.Err() == nil {
		resp, err := a.sync(ctx, pos.Since)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			var ae *apiError
			if errors.As(err, &ae) && (ae.Status == 401 || ae.Code == "M_UNKNOWN_TOKEN") {
				return fmt.Errorf("matrix: the homeserver no longer accepts the access token (%d %s); give a current one, or the password", ae.Status, ae.Code)
			}
			if errors.As(err, &ae) && ae.Status == 400 && pos.Since != "" {
				// A position the server no longer knows (another
				// account's, or one it forgot) cannot be retried.
				a.log.Warn("matrix: the homeserver refused the saved sync position; starting from now", "err", err)
				pos = position{}
				continue
			}
			if wait("matrix: sync failed; it resumes from the same position", err) != nil {
				break
			}
			continue
		}
		if err := a.hand(ctx, resp, pos, deliver); err != nil {
			// The position is not moved: the next sync offers the batch again.
			if ctx.Err() != nil || wait("matrix: an event was not taken; it will be offered again", err) != nil {
				break
			}
			continue
		}
		backoff = 0
		if resp.NextBatch != "" && resp.NextBatch != pos.Since {
			pos = position{Since: resp.NextBatch, At: a.clock.Now().UnixMilli()}
			a.saveCursor(ctx, pos)
		}
	}
	return nil
}

// sync makes one /sync call: a long poll from since, or, with no
// position yet, an immediate one that only learns where now is.
func (a *Adapter) sync(ctx context.Context, since string) (*syncResponse, error) {
	q := url.Values{"filter": {syncFilter}, "set_presence": {"offline"}}
	if since == "" {
		q.Set("timeout", "0")
	} else {
		q.Set("since", since)
		q.Set("timeout", strconv.FormatInt(a.poll.Milliseconds(), 10))
	}
	ctx, cancel := context.WithTimeout(ctx, a.poll+callTimeout)
	defer cancel()
	var resp syncResponse
	if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/sync", q, nil, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// position is where the sync stream was read up to: the server's
// next_batch, and when (Unix milliseconds), which bounds how far back a
// gap is read on servers that do not stop /messages at a sync token.
type position struct {
	Since string `json:"since"`
	At    int64  `json:"at,omitempty"`
}

// loadCursor reads the saved position; one that cannot be read starts
// from now, which misses what came while hermes was away rather than
// answering old history.
func (a *Adapter) loadCursor(ctx context.Context) position {
	if a.cursor == nil {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.pos
	}
	saved, err := a.cursor.Load(ctx)
	if err != nil {
		a.log.Warn("matrix: the saved sync position could not be read; starting from now", "err", err)
		return position{}
	}
	var pos position
	if saved != "" && json.Unmarshal([]byte(saved), &pos) != nil {
		a.log.Warn("matrix: the saved sync position is not one hermes wrote; starting from now")
		return position{}
	}
	return pos
}

func (a *Adapter) saveCursor(ctx context.Context, pos position) {
	a.mu.Lock()
	a.pos = pos
	a.mu.Unlock()
	if a.cursor == nil {
		return
	}
	b, _ := json.Marshal(pos)
	if err := a.cursor.Save(ctx, string(b)); err != nil && ctx.Err() == nil {
		a.log.Warn("matrix: the sync position was not saved; a restart may offer these events again", "err", err)
	}
}
