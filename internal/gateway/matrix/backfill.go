package matrix

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
)

// maxBackfill bounds the events read back into a gap: a room that had
// more while hermes was away has its oldest skipped, and the log says so.
const maxBackfill = 1000

// backfillSkew is how much earlier than the saved position's time an
// event may be stamped and still be read back: the homeserver's clock is
// not hermes's. What is read twice because of it, the gateway's dedupe
// answers once.
const backfillSkew = 5 * time.Minute

// backfill reads the events a limited timeline left out, oldest first:
// back from the timeline's prev_batch to the position of the sync
// before. Not every server stops /messages at a sync token (dendrite
// goes on to the room's creation), so the reading also stops at events
// older than the time that position was saved. Without it, a room
// busier than one sync's timeline loses messages silently.
func (a *Adapter) backfill(ctx context.Context, roomID, from string, pos position) ([]event, error) {
	if from == "" {
		a.log.Warn("matrix: the room had more new events than one sync returns, and no position to read them back from; the oldest were skipped", "room", roomID)
		return nil, nil
	}
	notBefore := int64(0)
	if pos.At > 0 {
		notBefore = pos.At - backfillSkew.Milliseconds()
	}
	var gap []event
	for len(gap) < maxBackfill {
		q := url.Values{"dir": {"b"}, "from": {from}, "to": {pos.Since}, "limit": {strconv.Itoa(min(100, maxBackfill-len(gap)))}}
		var page struct {
			Chunk []event `json:"chunk"`
			End   string  `json:"end"`
		}
		if err := a.call(ctx, http.MethodGet, "/_matrix/client/v3/rooms/"+pathEsc(roomID)+"/messages", q, nil, &page); err != nil {
			if temporary(err) || rateLimitedErr(err) {
				return nil, fmt.Errorf("reading back %s: %w", roomID, err)
			}
			a.log.Warn("matrix: the events a sync left out could not be read back; they are skipped", "room", roomID, "err", err)
			return nil, nil
		}
		for _, e := range page.Chunk {
			if e.OriginTS > 0 && e.OriginTS < notBefore {
				slices.Reverse(gap)
				return gap, nil
			}
			gap = append(gap, e)
		}
		if len(page.Chunk) == 0 || page.End == "" || page.End == from {
			slices.Reverse(gap)
			return gap, nil
		}
		from = page.End
	}
	a.log.Warn("matrix: the room had more new events than hermes reads back; the oldest were skipped", "room", roomID, "read", maxBackfill)
	slices.Reverse(gap)
	return gap, nil
}
