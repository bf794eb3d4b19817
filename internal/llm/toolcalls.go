package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// ToolCallAccumulator assembles streamed tool-call fragments into whole
// calls. It survives the ways real servers bend the protocol:
//
//   - the id is sent on the first fragment and then as "" (DashScope), or
//     never (Gemini): the first non-empty id and name are kept;
//   - fragments carry no index (Mistral): a new non-empty id starts a new
//     call, anything else continues the last one;
//   - two calls share index 0 but have different ids: the new id starts a
//     new call;
//   - the whole call, id and name included, is re-sent in every chunk
//     (Kimi via OpenRouter), or arguments are re-sent whole instead of as
//     increments: when the concatenation is not valid JSON but the last
//     fragment that was a complete JSON value on its own is, that wins.
type ToolCallAccumulator struct {
	calls   []*partialCall
	byIndex map[int]int
}

type partialCall struct {
	id, name  string
	args      strings.Builder
	lastWhole string
}

// NoIndex marks a fragment that carried no index on the wire.
const NoIndex = -1

// Add merges one fragment. wireIndex is the fragment's index on the wire or
// NoIndex. It returns the position of the call the fragment belongs to.
func (a *ToolCallAccumulator) Add(wireIndex int, id, name, args string) int {
	pos := a.locate(wireIndex, id)
	c := a.calls[pos]
	if c.id == "" && id != "" {
		c.id = id
	}
	if c.name == "" && name != "" {
		c.name = name
	}
	if args != "" {
		c.args.WriteString(args)
		if t := strings.TrimSpace(args); len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
			c.lastWhole = t
		}
	}
	return pos
}

// locate finds or creates the call a fragment belongs to.
func (a *ToolCallAccumulator) locate(wireIndex int, id string) int {
	if id != "" {
		for i, c := range a.calls {
			if c.id == id {
				if wireIndex != NoIndex {
					a.index(wireIndex, i)
				}
				return i
			}
		}
	}
	if wireIndex == NoIndex {
		if len(a.calls) == 0 || (id != "" && a.calls[len(a.calls)-1].id != "") {
			return a.start(NoIndex)
		}
		return len(a.calls) - 1
	}
	if i, ok := a.byIndex[wireIndex]; ok {
		if id == "" || a.calls[i].id == "" {
			return i
		}
		// Same index, different non-empty id: a second call.
	}
	return a.start(wireIndex)
}

func (a *ToolCallAccumulator) start(wireIndex int) int {
	a.calls = append(a.calls, &partialCall{})
	pos := len(a.calls) - 1
	if wireIndex != NoIndex {
		a.index(wireIndex, pos)
	}
	return pos
}

func (a *ToolCallAccumulator) index(wireIndex, pos int) {
	if a.byIndex == nil {
		a.byIndex = make(map[int]int)
	}
	a.byIndex[wireIndex] = pos
}

// Len returns the number of calls seen so far.
func (a *ToolCallAccumulator) Len() int { return len(a.calls) }

// Calls returns the assembled calls in order. Empty arguments become "{}";
// a missing id is replaced by a stable one derived from seed (the response
// id), the call's position, name and arguments, so the same reply always
// gets the same ids.
func (a *ToolCallAccumulator) Calls(seed string) []ToolCall {
	if len(a.calls) == 0 {
		return nil
	}
	out := make([]ToolCall, 0, len(a.calls))
	for i, c := range a.calls {
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		} else if !json.Valid([]byte(args)) && c.lastWhole != "" {
			args = c.lastWhole
		}
		id := c.id
		if id == "" {
			id = StableCallID(seed, i, c.name, args)
		}
		out = append(out, ToolCall{ID: id, Name: c.name, Arguments: args})
	}
	return out
}

// StableCallID invents a tool-call id for vendors that send none. The id is
// derived from the reply so that parsing the same reply twice gives the same
// id, and differs between calls of one reply.
func StableCallID(seed string, pos int, name, args string) string {
	h := sha256.New()
	h.Write([]byte(seed))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(pos)))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(args))
	return "call_" + hex.EncodeToString(h.Sum(nil))[:24]
}

// ArgumentsText turns a wire "arguments" value into argument text: a JSON
// string is unquoted (the usual form), while an object or array (sent by
// some servers instead of a string) is kept as its JSON text.
func ArgumentsText(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return ""
	}
	if t[0] == '"' {
		var s string
		if json.Unmarshal([]byte(t), &s) == nil {
			return s
		}
	}
	return t
}
