package llm

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// sameMessage must look at every field of a message, or the cache would
// send a stale encoding of a message that changed in that field. Each
// field, down into the slices' elements, is changed in turn.
func TestSameMessageSeesEveryField(t *testing.T) {
	base := Message{Role: RoleAssistant, Content: []Part{{Type: PartText, Text: "t", ImageURL: "u", MIMEType: "m"}},
		ToolCalls: []ToolCall{{ID: "i", Name: "n", Arguments: "{}"}}, ToolCallID: "c", Name: "n", Reasoning: "r",
		ReasoningBlocks: []ReasoningBlock{{Type: "thinking", ID: "i", Text: "t", Signature: "s", Data: "d"}}}
	mt := reflect.TypeOf(base)
	checked := 0
	for i := range mt.NumField() {
		f := mt.Field(i)
		if f.Type.Kind() == reflect.Slice {
			et := f.Type.Elem()
			for j := range et.NumField() {
				m := frozen(base)
				reflect.ValueOf(&m).Elem().Field(i).Index(0).Field(j).SetString("changed")
				if sameMessage(base, m) {
					t.Errorf("a change of %s[0].%s is not seen", f.Name, et.Field(j).Name)
				}
				checked++
			}
			continue
		}
		m := frozen(base)
		reflect.ValueOf(&m).Elem().Field(i).SetString("changed")
		if sameMessage(base, m) {
			t.Errorf("a change of %s is not seen", f.Name)
		}
		checked++
	}
	if checked < 16 {
		t.Errorf("checked %d fields; the test lost track of Message's shape", checked)
	}
	if !sameMessage(base, frozen(base)) {
		t.Error("a message is not the same as its copy")
	}
}

func TestWireCacheEncodesOnlyWhatChanged(t *testing.T) {
	var encoded []string
	enc := func(m Message) ([]byte, error) {
		encoded = append(encoded, m.Text())
		return json.Marshal(m.Text())
	}
	msgs := func(texts ...string) []Message {
		var out []Message
		for _, s := range texts {
			out = append(out, UserMessage(s))
		}
		return out
	}
	var c WireCache
	history := msgs("a", "b")
	step := func(name string, format string, in []Message, wantEncoded ...string) {
		t.Helper()
		encoded = nil
		got, err := c.Messages(format, in, enc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(encoded, wantEncoded) {
			t.Errorf("%s: encoded %q, want %q", name, encoded, wantEncoded)
		}
		var want []string
		for _, m := range in {
			b, _ := json.Marshal(m.Text())
			want = append(want, string(b))
		}
		var gotS []string
		for _, b := range got {
			gotS = append(gotS, string(b))
		}
		if !slices.Equal(gotS, want) {
			t.Errorf("%s: returned %q, want %q", name, gotS, want)
		}
	}
	step("first call", "chat", history, "a", "b")
	history = append(history, UserMessage("c"))
	step("one appended", "chat", history, "c")
	step("nothing new", "chat", history)
	rewritten := append(msgs("a", "B"), history[2:]...)
	step("a message rewritten", "chat", rewritten, "B", "c")
	rewritten[0].Content[0].Text = "A" // changed in place, as no caller should
	step("changed in place", "chat", rewritten, "A", "B", "c")
	step("shorter history", "chat", rewritten[:1])
	step("another format", "anthropic", rewritten[:1], "A")

	var nilCache *WireCache
	encoded = nil
	if _, err := nilCache.Messages("chat", history, enc); err != nil || len(encoded) != 3 {
		t.Errorf("a nil cache encoded %q, %v; want all three", encoded, err)
	}
}

func TestWireCacheTools(t *testing.T) {
	var c WireCache
	calls := 0
	enc := func(ts []ToolSpec) ([]byte, error) {
		calls++
		return json.Marshal(ts)
	}
	tools := []ToolSpec{{Name: "a", Parameters: json.RawMessage(`{"type":"object"}`)}}
	for i := range 3 {
		if _, err := c.Tools("chat", tools, enc); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Fatalf("call %d: the same tools encoded %d times", i, calls)
		}
	}
	changed := slices.Clone(tools)
	changed[0].Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	if b, _ := c.Tools("chat", changed, enc); calls != 2 || !json.Valid(b) {
		t.Errorf("changed parameters: %d encodings, %s", calls, b)
	}
	if _, _ = c.Tools("chat", nil, enc); calls != 3 {
		t.Errorf("no tools after some: %d encodings, want 3", calls)
	}
}
