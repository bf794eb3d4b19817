package llm

import (
	"bytes"
	"slices"
	"sync"
)

// WireCache remembers the wire encoding of a conversation's messages and
// tools from one model call to the next, so that each call of a turn
// encodes only what is new: the request body is the cached encoding of
// the messages sent last time plus those appended since. A turn of 150
// tool rounds would otherwise encode its whole, growing history 150
// times, which is most of what a round costs hermes.
//
// A cached message is reused only while it is equal, field by field, to
// the message now at its position; the strings compared share their
// memory with the cached copy, so the check costs next to nothing. A
// history rewritten by compression is therefore encoded again from its
// first changed message, and nothing stale is ever sent. The encoding is
// byte for byte what encoding the message afresh gives, so the prompt
// cache of the provider sees the same prefix.
//
// The zero WireCache is ready. A nil *WireCache caches nothing. It is
// safe for concurrent use, though one turn calls one model at a time.
type WireCache struct {
	mu sync.Mutex
	// format names the encoding the entries are in ("chat", "anthropic",
	// ...); a call in another format (a fallback provider of another
	// kind) starts the cache again.
	format   string
	msgs     []Message
	enc      [][]byte
	tools    []ToolSpec
	toolsEnc []byte
	hasTools bool
	// Shared, when set, is asked for the tools' encoding before it is
	// encoded afresh, so that conversations offering the same tools
	// encode them once between them.
	Shared *ToolEncodings
}

// Encoded is a request body already encoded as JSON; Endpoint.Post sends
// it as it is instead of encoding it again.
type Encoded []byte

// Messages returns the encoding of each of msgs in format, calling encode
// for those not cached. The returned slices are shared with the cache and
// must not be changed.
func (c *WireCache) Messages(format string, msgs []Message, encode func(Message) ([]byte, error)) ([][]byte, error) {
	if c == nil {
		out := make([][]byte, len(msgs))
		for i, m := range msgs {
			b, err := encode(m)
			if err != nil {
				return nil, err
			}
			out[i] = b
		}
		return out, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.use(format)
	same := 0
	for same < len(msgs) && same < len(c.msgs) && sameMessage(msgs[same], c.msgs[same]) {
		same++
	}
	c.msgs, c.enc = c.msgs[:same], c.enc[:same]
	for _, m := range msgs[same:] {
		b, err := encode(m)
		if err != nil {
			return nil, err
		}
		c.msgs = append(c.msgs, frozen(m))
		c.enc = append(c.enc, b)
	}
	return slices.Clone(c.enc), nil
}

// Tools returns the encoding of tools in format, from encode when they
// differ from those encoded last. The result is shared with the cache.
func (c *WireCache) Tools(format string, tools []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	if c == nil {
		return encode(tools)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.use(format)
	if c.hasTools && slices.EqualFunc(tools, c.tools, sameTool) {
		return c.toolsEnc, nil
	}
	var b []byte
	var err error
	if c.Shared != nil {
		b, err = c.Shared.get(format, tools, encode)
	} else {
		b, err = encode(tools)
	}
	if err != nil {
		return nil, err
	}
	c.tools, c.toolsEnc, c.hasTools = slices.Clone(tools), b, true
	return b, nil
}

// use empties the cache when format is not the one its entries are in.
func (c *WireCache) use(format string) {
	if c.format != format {
		c.format, c.msgs, c.enc = format, nil, nil
		c.tools, c.toolsEnc, c.hasTools = nil, nil, false
	}
}

// frozen returns m with its own copies of its slices, so that a caller
// changing an element of the original in place makes the two differ
// instead of changing the cached copy along with it.
func frozen(m Message) Message {
	m.Content = slices.Clone(m.Content)
	m.ToolCalls = slices.Clone(m.ToolCalls)
	m.ReasoningBlocks = slices.Clone(m.ReasoningBlocks)
	return m
}

// sameMessage reports whether a and b are equal in every field. Strings
// that share memory compare in constant time.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && a.ToolCallID == b.ToolCallID && a.Name == b.Name && a.Reasoning == b.Reasoning &&
		slices.Equal(a.Content, b.Content) && slices.Equal(a.ToolCalls, b.ToolCalls) &&
		slices.Equal(a.ReasoningBlocks, b.ReasoningBlocks)
}

func sameTool(a, b ToolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
}
