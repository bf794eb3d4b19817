package matrix

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/gateway"
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
	since := a.loadCursor(ctx)
	for ctx.Err() == nil {
		resp, err := a.sync(ctx, since)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			var ae *apiError
			if errors.As(err, &ae) && (ae.Status == 401 || ae.Code == "M_UNKNOWN_TOKEN") {
				return fmt.Errorf("matrix: the homeserver no longer accepts the access token (%d %s); give a current one, or the password", ae.Status, ae.Code)
			}
			if errors.As(err, &ae) && ae.Status == 400 && since != "" {
				// A position the server no longer knows (another
				// account's, or one it forgot) cannot be retried.
				a.log.Warn("matrix: the homeserver refused the saved sync position; starting from now", "err", err)
				since = ""
				continue
			}
			if wait("matrix: sync failed; it resumes from the same position", err) != nil {
				break
			}
			continue
		}
		if err := a.hand(ctx, resp, since == "", deliver); err != nil {
			// The position is not moved: the next sync offers the batch again.
			if ctx.Err() != nil || wait("matrix: an event was not taken; it will be offered again", err) != nil {
				break
			}
			continue
		}
		backoff = 0
		if resp.NextBatch != "" && resp.NextBatch != since {
			since = resp.NextBatch
			a.saveCursor(ctx, since)
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

// loadCursor reads the saved position; one that cannot be read starts
// from now, which misses what came while hermes was away rather than
// answering old history.
func (a *Adapter) loadCursor(ctx context.Context) string {
	if a.cursor == nil {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.since
	}
	since, err := a.cursor.Load(ctx)
	if err != nil {
		a.log.Warn("matrix: the saved sync position could not be read; starting from now", "err", err)
		return ""
	}
	return since
}

func (a *Adapter) saveCursor(ctx context.Context, since string) {
	a.mu.Lock()
	a.since = since
	a.mu.Unlock()
	if a.cursor == nil {
		return
	}
	if err := a.cursor.Save(ctx, since); err != nil && ctx.Err() == nil {
		a.log.Warn("matrix: the sync position was not saved; a restart may offer these events again", "err", err)
	}
}
