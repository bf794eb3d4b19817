package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// protocol writes replies in one vendor's wire format.
type protocol interface {
	// body returns the non-streamed JSON reply.
	body(a *answer) any
	// stream writes the reply as Server-Sent Events. When a.streamErr is
	// set the stream ends with that error instead of its normal ending.
	stream(sw *sseWriter, a *answer)
	// errorBody returns the HTTP error envelope.
	errorBody(status int, e ErrorReply, requestID string) any
	// requestIDHeader names the header the vendor puts its request id in.
	requestIDHeader() string
	// endless writes a streamed reply that never ends (Reply.Endless).
	endless(e *endless)
}

// protocolFor returns the writer for api.
func protocolFor(api API) protocol {
	switch api {
	case Responses:
		return responsesProtocol{}
	case AnthropicMessages:
		return anthropicProtocol{}
	}
	return chatProtocol{}
}

// requestID is the id the server gives request n, sent in the vendor's
// request-id header and in Anthropic error bodies.
func requestID(n int) string { return fmt.Sprintf("req_llmtest_%d", n) }

// respond writes rep as the answer to req: after the Delay, either the Raw
// body, an HTTP error, one JSON body or an SSE stream.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	p := protocolFor(req.API)
	id := requestID(req.Index)
	h := w.Header()
	h.Set(p.requestIDHeader(), id)
	for k, vs := range rep.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if rep.Delay > 0 && !s.wait(r.Context(), rep.Delay) {
		return
	}
	status := http.StatusOK
	if rep.Status > 0 {
		status = rep.Status
	}
	switch {
	case rep.Endless != "":
		s.writeEndless(w, r, req, rep)
	case rep.Raw != "":
		s.writeRaw(w, r, req, rep, status)
	case status >= 400 || (rep.Error != nil && !(rep.Error.InStream && req.Stream)):
		if status < 400 {
			status = http.StatusInternalServerError
		}
		var e ErrorReply
		if rep.Error != nil {
			e = *rep.Error
		}
		writeHTTPError(w, p, status, e, id)
	case !req.Stream && rep.StallAfter != 0:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = http.NewResponseController(w).Flush()
		s.hang(r.Context())
	case !req.Stream:
		writeJSON(w, status, p.body(resolve(req, rep)))
	default:
		sw := &sseWriter{w: w, rc: http.NewResponseController(w), ctx: r.Context(), quit: s.quit, stallAfter: rep.StallAfter}
		if sw.start(status) {
			p.stream(sw, resolve(req, rep))
		}
	}
}

// wait sleeps for d unless the client goes away or the server closes
// first; it reports whether the full time passed.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.quit:
	}
	return false
}

// hang blocks until the client goes away or the server closes.
func (s *Server) hang(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.quit:
	}
}

// writeRaw sends rep.Raw verbatim, in flushed pieces of ChunkSize bytes
// when one is set, so that a client's parser meets lines split across reads.
func (s *Server) writeRaw(w http.ResponseWriter, r *http.Request, req *Request, rep Reply, status int) {
	ct := rep.RawContentType
	if ct == "" {
		ct = "application/json"
		if req.Stream {
			ct = "text/event-stream; charset=utf-8"
		}
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	rc := http.NewResponseController(w)
	body := rep.Raw
	n := rep.ChunkSize
	if n <= 0 {
		n = len(body)
	}
	for body != "" && r.Context().Err() == nil {
		k := min(n, len(body))
		if _, err := w.Write([]byte(body[:k])); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		body = body[k:]
	}
}

// writeJSON sends v as a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(marshal(v))
}

// marshal encodes v as compact JSON without HTML escaping, the way the
// vendors send text (a literal "<" rather than "\u003c").
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("llmtest: encode reply: " + err.Error()) // only server-built values are encoded
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sseWriter writes Server-Sent Events, flushing after every event so that
// the client sees each one as it is sent. It counts events to honour
// Reply.StallAfter. Once the client is gone or the stall has happened, every
// further write is a no-op, so the protocol writers need not check.
type sseWriter struct {
	w          http.ResponseWriter
	rc         *http.ResponseController
	ctx        context.Context
	quit       <-chan struct{}
	stallAfter int
	sent       int
	dead       bool
}

// start sends the response headers. It reports false when nothing more
// should be written: the client is gone, or the reply stalls before its
// first event.
func (sw *sseWriter) start(status int) bool {
	h := sw.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	sw.w.WriteHeader(status)
	if err := sw.rc.Flush(); err != nil {
		sw.dead = true
		return false
	}
	if sw.stallAfter < 0 {
		sw.hang()
		return false
	}
	return true
}

// event sends one event whose data is v encoded as JSON; name is the
// "event:" field, empty for none.
func (sw *sseWriter) event(name string, v any) {
	sw.write(name, marshal(v))
}

// write sends one event with the given data line.
func (sw *sseWriter) write(name string, data []byte) {
	if sw.dead || sw.ctx.Err() != nil {
		sw.dead = true
		return
	}
	var b bytes.Buffer
	if name != "" {
		b.WriteString("event: ")
		b.WriteString(name)
		b.WriteByte('\n')
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := sw.w.Write(b.Bytes()); err != nil {
		sw.dead = true
		return
	}
	if err := sw.rc.Flush(); err != nil {
		sw.dead = true
		return
	}
	sw.sent++
	if sw.stallAfter > 0 && sw.sent >= sw.stallAfter {
		sw.hang()
	}
}

// hang blocks until the client goes away or the server closes, and ends
// the stream.
func (sw *sseWriter) hang() {
	select {
	case <-sw.ctx.Done():
	case <-sw.quit:
	}
	sw.dead = true
}
