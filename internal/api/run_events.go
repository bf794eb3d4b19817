package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLogBytes bounds the events a run keeps for watchers that come late;
// beyond it the oldest are dropped, and a watcher that missed some is
// told how many.
const maxLogBytes = 512 << 10

// runEvent is one logged event: its number, its SSE name and JSON data.
type runEvent struct {
	seq  int
	name string
	data []byte
}

// eventLog is a run's events, numbered from 1, that any number of
// watchers read at their own pace: the turn never waits for a watcher.
// Its fields are guarded by the run's mutex.
type eventLog struct {
	events []runEvent
	bytes  int
	next   int
	// changed is closed and replaced on every append, waking watchers.
	changed chan struct{}
}

// append logs an event and drops the oldest beyond maxLogBytes.
func (l *eventLog) append(name string, data []byte) {
	l.next++
	l.events = append(l.events, runEvent{seq: l.next, name: name, data: data})
	l.bytes += len(data)
	drop := 0
	for l.bytes > maxLogBytes && drop < len(l.events)-1 {
		l.bytes -= len(l.events[drop].data)
		drop++
	}
	if drop > 0 {
		l.events = append(l.events[:0:0], l.events[drop:]...)
	}
	close(l.changed)
	l.changed = make(chan struct{})
}

// since returns the events after seq, how many of those were dropped,
// and the channel closed by the next append.
func (l *eventLog) since(seq int) (events []runEvent, dropped int, changed <-chan struct{}) {
	if len(l.events) > 0 && l.events[0].seq > seq+1 {
		dropped = l.events[0].seq - seq - 1
	}
	for _, e := range l.events {
		if e.seq > seq {
			events = append(events, e)
		}
	}
	return events, dropped, l.changed
}

// runEvents answers GET /v1/runs/{id}/events: the run's events from the
// start (or after Last-Event-ID) as server-sent events, then live, until
// the terminal event. A watcher that leaves only stops watching.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	run := s.lookupRun(w, r)
	if run == nil {
		return
	}
	seq := 0
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		n, err := strconv.Atoi(last)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "Last-Event-ID", fmt.Sprintf("Last-Event-ID: %q is not accepted; send the id of the last event received, a number, or leave it out to start from the first", last))
			return
		}
		seq = n
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flush, _ := w.(http.Flusher)
	for {
		run.mu.Lock()
		events, dropped, changed := run.log.since(seq)
		ended := run.status != runRunning
		run.mu.Unlock()
		if dropped > 0 {
			fmt.Fprintf(w, "event: events.dropped\ndata: {\"dropped\":%d}\n\n", dropped)
		}
		for _, e := range events {
			fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.seq, e.name, e.data)
			seq = e.seq
		}
		if flush != nil {
			flush.Flush()
		}
		if ended {
			return
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		}
	}
}

// truncate cuts s to about n bytes at a character boundary, saying how
// much was cut.
func truncate(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	var b strings.Builder
	b.WriteString(s[:n])
	fmt.Fprintf(&b, "\n… (%d more bytes)", len(s)-n)
	return b.String()
}
