package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// body returns the request body for r: with req.Cache, put together from
// each message's blocks encoded once per turn (see llm.WireCache), in the
// same bytes json.Marshal gives for the filled messageRequest; without a
// cache, or with extra fields to merge, r itself, filled.
func (c *Client) body(req *llm.Request, r *messageRequest) (any, error) {
	if len(r.extra) > 0 || req.Cache == nil {
		c.fill(r, req)
		return r, nil
	}
	msgs, err := req.Cache.Messages("anthropic", req.Messages, func(m llm.Message) ([]byte, error) {
		role, blocks := messageBlocks(m)
		arr, err := json.Marshal(blocks)
		if err != nil {
			return nil, err
		}
		return append([]byte(role+"\n"), arr...), nil
	})
	if err != nil {
		return nil, err
	}
	var system [][]byte
	var turns []wireTurn
	for _, enc := range msgs {
		role, arr, _ := bytes.Cut(enc, []byte("\n"))
		if len(arr) <= 2 || arr[0] != '[' { // [] or null: nothing to send
			continue
		}
		inner := arr[1 : len(arr)-1]
		switch n := len(turns); {
		case string(role) == "system":
			system = append(system, inner)
		case n > 0 && turns[n-1].role == string(role):
			turns[n-1].blocks = append(turns[n-1].blocks, inner)
		default:
			turns = append(turns, wireTurn{role: string(role), blocks: [][]byte{inner}})
		}
	}
	var tools []byte
	if len(req.Tools) > 0 {
		if tools, err = req.Cache.Tools("anthropic", req.Tools, func(ts []llm.ToolSpec) ([]byte, error) {
			return json.Marshal(toolsOf(ts))
		}); err != nil {
			return nil, err
		}
	}
	if req.CacheBreakpoints {
		if err := c.markEncoded(system, &tools, turns); err != nil {
			return nil, err
		}
	}

	top, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	const hole = `"messages":null`
	at := bytes.Index(top, []byte(hole))
	if at < 0 {
		return nil, fmt.Errorf("anthropic request encoded as %.60s…, without %s", top, hole)
	}
	var b bytes.Buffer
	b.Grow(len(top) + len(tools) + size(system) + 64*len(turns) + turnsSize(turns))
	b.Write(top[:at])
	if len(system) > 0 {
		b.WriteString(`"system":`)
		writeList(&b, system)
		b.WriteByte(',')
	}
	b.WriteString(`"messages":[`)
	for i, t := range turns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"role":"` + t.role + `","content":`)
		writeList(&b, t.blocks)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if len(tools) > 0 {
		b.WriteString(`,"tools":`)
		b.Write(tools)
	}
	b.Write(top[at+len(hole):])
	return llm.Encoded(b.Bytes()), nil
}

// wireTurn is a turn as encoded blocks: each entry holds the blocks of one
// message, comma-separated, without the brackets.
type wireTurn struct {
	role   string
	blocks [][]byte
}

// markEncoded places the breakpoints markCacheBreakpoints would, on the
// encoded blocks: the last system block, the last tool, the last block of
// each of the last two user turns. The marked entries are copies, so the
// cached encodings stay unmarked.
func (c *Client) markEncoded(system [][]byte, tools *[]byte, turns []wireTurn) error {
	ttl := c.ep.CacheTTL
	if ttl != "1h" {
		ttl = ""
	}
	cc, err := json.Marshal(cacheControl{Type: "ephemeral", TTL: ttl})
	if err != nil {
		return err
	}
	left := maxBreakpoints
	if n := len(system); n > 0 {
		system[n-1] = marked(system[n-1], cc)
		left--
	}
	if t := *tools; len(t) > 2 {
		*tools = append(marked(t[:len(t)-1], cc), ']')
		left--
	}
	done := 0
	for i := len(turns) - 1; i >= 0 && done < 2 && left > 0; i-- {
		if turns[i].role != "user" {
			continue
		}
		bs := turns[i].blocks
		bs[len(bs)-1] = marked(bs[len(bs)-1], cc)
		done++
		left--
	}
	return nil
}

// marked returns a copy of the encoded blocks enc with cache_control set
// on the last one. cache_control is the last field of a block and of a
// tool, so the bytes are those of encoding the marked block.
func marked(enc, cc []byte) []byte {
	out := make([]byte, 0, len(enc)+len(cc)+20)
	out = append(out, enc[:len(enc)-1]...)
	out = append(out, `,"cache_control":`...)
	out = append(out, cc...)
	return append(out, '}')
}

// writeList writes parts as one JSON array.
func writeList(b *bytes.Buffer, parts [][]byte) {
	b.WriteByte('[')
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteByte(']')
}

func size(parts [][]byte) int {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	return n
}

func turnsSize(turns []wireTurn) int {
	n := 0
	for _, t := range turns {
		n += size(t.blocks)
	}
	return n
}
