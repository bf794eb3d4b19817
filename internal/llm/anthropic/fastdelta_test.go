package anthropic

import (
	"encoding/json"
	"testing"
)

func TestFastDelta(t *testing.T) {
	tests := []struct {
		data  string
		index int
		want  blockDelta
		ok    bool
	}{
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`, 0, blockDelta{Type: "text_delta", Text: "Hello"}, true},
		{`{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"a\"b\\c\/d\ne\tf"}      }`, 12, blockDelta{Type: "text_delta", Text: "a\"b\\c/d\ne\tf"}, true},
		{`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Pelé"}}`, 1, blockDelta{Type: "thinking_delta", Thinking: "Pelé"}, true},
		{`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}`, 2, blockDelta{Type: "input_json_delta", PartialJSON: `{"a": `}, true},
		{`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`, 2, blockDelta{Type: "input_json_delta"}, true},
		// Declined: left to encoding/json.
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9"}}`, 0, blockDelta{}, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}`, 0, blockDelta{}, false},
		{`{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`, 0, blockDelta{}, false},
		{`{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}`, 0, blockDelta{}, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}`, 0, blockDelta{}, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}}`, 0, blockDelta{}, false},
		{"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\nb\"}}", 0, blockDelta{}, false},
		{"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\"}}", 0, blockDelta{}, false},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated}}`, 0, blockDelta{}, false},
	}
	for _, tt := range tests {
		i, d, ok := fastDelta([]byte(tt.data))
		if ok != tt.ok || (ok && (i != tt.index || d != tt.want)) {
			t.Errorf("fastDelta(%s) = %d, %+v, %v; want %d, %+v, %v", tt.data, i, d, ok, tt.index, tt.want, tt.ok)
		}
	}
}

// FuzzFastDelta checks that whenever the fast path accepts an event,
// encoding/json decodes it to the same thing.
func FuzzFastDelta(f *testing.F) {
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":7,"delta":{"type":"thinking_delta","thinking":"a\\b\"c\nd"}   }`))
	f.Add([]byte(`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"x\":[1,"}}`))
	f.Add([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u00e9"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		i, d, ok := fastDelta(data)
		if !ok {
			return
		}
		var se streamEvent
		if err := json.Unmarshal(data, &se); err != nil {
			t.Fatalf("fast path accepted %q, encoding/json rejects it: %v", data, err)
		}
		if se.Type != "content_block_delta" || se.Index != i || se.Delta == nil || *se.Delta != d {
			t.Fatalf("fast path %d %+v, encoding/json %+v %+v for %q", i, d, se, se.Delta, data)
		}
	})
}
