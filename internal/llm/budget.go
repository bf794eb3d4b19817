package llm

import (
	"fmt"
	"io"
	"net/http"
)

// A model that does not stop — one stuck repeating itself, a broken
// server, a hostile endpoint — must not make hermes hold a reply without
// bound. Every adapter counts what it keeps of a reply against a Budget:
// text, reasoning and tool-call arguments as they arrive, and a fixed cost
// for each block, item or call the reply opens. Once the count passes the
// reply's limit, the adapter stops reading, which closes the connection,
// and ends the stream with an error of kind ErrReplyTooLarge, which is
// neither retried nor handed to a fallback provider: asking again would
// most likely pay for the same runaway reply.
//
// Two more bounds keep what is not counted small: one event (or a
// non-streamed body) may not be larger than MaxBody, and the bytes on the
// wire, which carry a reply's content and the vendor's framing around it,
// may not pass a multiple of the limit, so that a stream of empty events
// ends too.

// ReplyCeiling is the most text, reasoning and tool-call arguments one
// reply may carry together, whatever its max_tokens: 8 MiB, many times the
// longest replies models write (128k tokens are about 512 KiB of text).
const ReplyCeiling = 8 << 20

// A token is about four bytes of text (EstimateText); a reply asked for
// with max_tokens is cut at four times the bytes that estimate allows, so
// that text denser in bytes than the estimate (long runs of spaces, which
// tokenizers pack into one token) is never cut, plus an allowance for
// replies with a small max_tokens.
const (
	replyBytesPerToken = 16
	replySlack         = 64 << 10
)

// partCost is what opening a content block, output item or tool call
// costs, so that a stream of empty parts is bounded too.
const partCost = 256

// bodySlack is the room a single event or body has beyond twice the
// reply's limit, for what vendors repeat of the request (the Responses API
// echoes the instructions and the tools in its final event).
const bodySlack = 4 << 20

// wirePerByte bounds the bytes on the wire per byte of the limit:
// vendors wrap every few characters of a reply in an event of two or three
// hundred bytes.
const wirePerByte = 64

// ReplyLimit is the size in bytes of text, reasoning and tool-call
// arguments together past which a reply asked for with maxTokens (zero or
// less: not set) is cut.
func ReplyLimit(maxTokens int) int64 {
	if maxTokens <= 0 {
		return ReplyCeiling
	}
	return min(ReplyCeiling, int64(maxTokens)*replyBytesPerToken+replySlack)
}

// Budget counts one reply against its limit. An adapter makes one per
// call with NewBudget and charges it as the reply grows; it is not safe
// for concurrent use.
type Budget struct {
	provider  string
	maxTokens int
	limit     int64
	used      int64
	err       *Error
}

// NewBudget returns the budget of a reply from provider asked for with
// maxTokens, as the adapter sent it (zero or less when it sent none).
func NewBudget(provider string, maxTokens int) *Budget {
	return &Budget{provider: provider, maxTokens: maxTokens, limit: ReplyLimit(maxTokens)}
}

// Spend charges n bytes kept of the reply. It returns nil while the reply
// is within its limit and, from the charge that passes it on, the error
// that must end the stream.
func (b *Budget) Spend(n int) error {
	if b.err != nil {
		return b.err
	}
	b.used += int64(n)
	if b.used > b.limit {
		b.err = b.tooLarge(fmt.Sprintf("the reply passed %s of text, reasoning and tool-call arguments", size(b.limit)))
		return b.err
	}
	return nil
}

// Part charges the opening of a content block, output item or tool call.
func (b *Budget) Part() error { return b.Spend(partCost) }

// Err is the error that ended the reply, nil while it is within bounds.
func (b *Budget) Err() error {
	if b.err == nil {
		return nil
	}
	return b.err
}

// MaxBody is the size of the largest single event, or non-streamed body,
// the reply may come in: twice the limit (JSON escapes, and vendors that
// repeat the whole reply at its end) and room for what they echo of the
// request.
func (b *Budget) MaxBody() int { return int(2*b.limit + bodySlack) }

// Body wraps a streamed response body so that reading more bytes than the
// reply may take on the wire fails with the error that ends the stream.
func (b *Budget) Body(r io.Reader) io.Reader {
	return &wireLimit{r: r, b: b, left: b.limit*wirePerByte + bodySlack}
}

// ReadAll reads a non-streamed reply body of at most MaxBody bytes and
// closes it; a longer one ends the reply with the budget's error.
func (b *Budget) ReadAll(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	limit := int64(b.MaxBody())
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		b.err = b.tooLarge(fmt.Sprintf("the reply body passed %s", size(limit)))
		return nil, b.err
	}
	return data, nil
}

// tooLarge is the error that ends a reply, saying what passed which bound
// and what to do.
func (b *Budget) tooLarge(what string) *Error {
	why := "the most hermes takes of one reply"
	if b.maxTokens > 0 && b.limit < ReplyCeiling {
		why = fmt.Sprintf("far more than max_tokens %d allows", b.maxTokens)
	}
	return &Error{Kind: ErrReplyTooLarge, Provider: b.provider, Message: what + " (" + why + "), so hermes cut the stream. " +
		"The model may be stuck repeating itself: try again, ask for a smaller step, or use another model"}
}

// wireLimit is a streamed body that fails once more than left bytes have
// been read from it.
type wireLimit struct {
	r    io.Reader
	b    *Budget
	left int64
}

func (w *wireLimit) Read(p []byte) (int, error) {
	if w.left <= 0 {
		if w.b.err == nil {
			w.b.err = w.b.tooLarge("the reply's stream passed " + size(w.b.limit*wirePerByte+bodySlack) + " on the wire")
		}
		return 0, w.b.err
	}
	if int64(len(p)) > w.left {
		p = p[:w.left]
	}
	n, err := w.r.Read(p)
	w.left -= int64(n)
	return n, err
}

// size writes a byte count the way people read it.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
