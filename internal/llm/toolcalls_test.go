package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type frag struct {
	index          int
	id, name, args string
}

func TestToolCallAccumulator(t *testing.T) {
	tests := []struct {
		name  string
		frags []frag
		want  []ToolCall
	}{
		{"openai split arguments", []frag{
			{0, "call_1", "get", ""}, {0, "", "", `{"ci`}, {0, "", "", `ty":"Paris"}`},
		}, []ToolCall{{"call_1", "get", `{"city":"Paris"}`}}},
		{"parallel by index", []frag{
			{0, "a", "f", ""}, {1, "b", "g", ""}, {0, "", "", `{"x":1}`}, {1, "", "", `{"y":2}`},
		}, []ToolCall{{"a", "f", `{"x":1}`}, {"b", "g", `{"y":2}`}}},
		{"id sent once then empty", []frag{
			{0, "call_e", "weather", ""}, {0, "", "", `{"location": "SF`}, {0, "", "", `"}`}, {0, "", "", ""},
		}, []ToolCall{{"call_e", "weather", `{"location": "SF"}`}}},
		{"no index, new id starts new call", []frag{
			{NoIndex, "m1", "a", `{"p":1}`}, {NoIndex, "m2", "b", `{"q":2}`},
		}, []ToolCall{{"m1", "a", `{"p":1}`}, {"m2", "b", `{"q":2}`}}},
		{"no index, continuation without id", []frag{
			{NoIndex, "m1", "a", `{"p":`}, {NoIndex, "", "", `1}`},
		}, []ToolCall{{"m1", "a", `{"p":1}`}}},
		{"same index different ids", []frag{
			{0, "c1", "a", `{}`}, {0, "c2", "b", `{"z":true}`},
		}, []ToolCall{{"c1", "a", `{}`}, {"c2", "b", `{"z":true}`}}},
		{"whole call resent every chunk", []frag{
			{0, "0", "llm_version", ""}, {0, "0", "llm_version", "{}"},
		}, []ToolCall{{"0", "llm_version", `{}`}}},
		{"arguments resent whole", []frag{
			{0, "k", "f", `{"a":1}`}, {0, "k", "f", `{"a":1}`},
		}, []ToolCall{{"k", "f", `{"a":1}`}}},
		{"arguments resent cumulatively", []frag{
			{0, "k", "f", `{"a`}, {0, "k", "f", `{"a":1}`},
		}, []ToolCall{{"k", "f", `{"a":1}`}}},
		{"nested prefix is not mistaken for a resend", []frag{
			{0, "k", "f", `{"a":`}, {0, "", "", `{"a":1}}`},
		}, []ToolCall{{"k", "f", `{"a":{"a":1}}`}}},
		{"empty arguments become {}", []frag{{0, "k", "f", ""}}, []ToolCall{{"k", "f", `{}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a ToolCallAccumulator
			for _, f := range tt.frags {
				a.Add(f.index, f.id, f.name, f.args)
			}
			if got := a.Calls("seed"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestToolCallAccumulatorInventsStableIDs(t *testing.T) {
	build := func() []ToolCall {
		var a ToolCallAccumulator
		a.Add(0, "", "get_time", "")
		a.Add(1, "", "get_time", "")
		return a.Calls("resp_1")
	}
	first, second := build(), build()
	if first[0].ID == "" || !strings.HasPrefix(first[0].ID, "call_") {
		t.Fatalf("invented id = %q, want call_…", first[0].ID)
	}
	if first[0].ID == first[1].ID {
		t.Errorf("two calls got the same invented id %q", first[0].ID)
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("ids not stable: %v vs %v", first, second)
	}
}

func TestArgumentsText(t *testing.T) {
	for in, want := range map[string]string{
		`"{\"a\":1}"`: `{"a":1}`,
		`{"a": 1}`:    `{"a": 1}`,
		`null`:        ``,
		``:            ``,
		`"plain"`:     `plain`,
		` [1,2] `:     `[1,2]`,
	} {
		if got := ArgumentsText(json.RawMessage(in)); got != want {
			t.Errorf("ArgumentsText(%s) = %q, want %q", in, got, want)
		}
	}
}

func FuzzToolCallAccumulator(f *testing.F) {
	f.Add(0, "call_1", "f", `{"a":`, 0, "", "", `1}`)
	f.Add(NoIndex, "m1", "a", `{}`, NoIndex, "m2", "b", `{"x":[1]}`)
	f.Add(0, "0", "v", "", 0, "0", "v", "{}")
	f.Add(0, "", "", `{"a`, 0, "", "", `{"a":1}`)
	f.Fuzz(func(t *testing.T, i1 int, id1, n1, a1 string, i2 int, id2, n2, a2 string) {
		clamp := func(i int) int {
			if i < NoIndex || i > 8 {
				return NoIndex
			}
			return i
		}
		var a ToolCallAccumulator
		p1 := a.Add(clamp(i1), id1, n1, a1)
		p2 := a.Add(clamp(i2), id2, n2, a2)
		calls := a.Calls("seed")
		if len(calls) != a.Len() || p1 >= len(calls) || p2 >= len(calls) || len(calls) == 0 || len(calls) > 2 {
			t.Fatalf("positions %d,%d out of %d calls", p1, p2, len(calls))
		}
		seen := map[string]bool{}
		for _, c := range calls {
			if c.ID == "" || c.Arguments == "" {
				t.Fatalf("call with empty id or arguments: %+v", c)
			}
			if seen[c.ID] {
				t.Fatalf("duplicate id %q in %+v", c.ID, calls)
			}
			seen[c.ID] = true
		}
	})
}
