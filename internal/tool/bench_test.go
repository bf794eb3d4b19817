package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// fiveProps is a typical small tool schema.
const fiveProps = `{
  "type": "object",
  "properties": {
    "query":  {"type": "string", "description": "what to look for"},
    "limit":  {"type": "integer", "minimum": 1, "maximum": 100},
    "status": {"type": "string", "enum": ["pending", "paid", "shipped", "cancelled"]},
    "since":  {"type": "string", "format": "date"},
    "exact":  {"type": "boolean"}
  },
  "required": ["query"]
}`

func BenchmarkDispatchSmall(b *testing.B) {
	tl := &fakeTool{spec: Spec{Name: "search_orders", Parameters: json.RawMessage(fiveProps)},
		call: func(context.Context, json.RawMessage) (any, error) { return map[string]int{"count": 3}, nil }}
	d := &Dispatcher{Registry: newRegistry(b, tl)}
	ctx := WithInvocation(context.Background(), Invocation{SessionID: "s", Workdir: "/w"})
	calls := []llm.ToolCall{call("c1", "search_orders", `{"query":"late orders","limit":20,"status":"paid","since":"2024-01-01","exact":false}`)}
	b.ReportAllocs()
	for b.Loop() {
		if o := d.Run(ctx, calls, nil); o[0].Result.Status != StatusOK {
			b.Fatal(o[0].Content)
		}
	}
}

func BenchmarkRegistrySpecs(b *testing.B) {
	r := NewRegistry()
	for i := range 40 {
		if err := r.Register(simple(fmt.Sprintf("tool_%02d", i), fmt.Sprintf("set%d", i%5), fiveProps)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(r.Specs()) != 40 {
			b.Fatal("wrong count")
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	r := NewRegistry()
	for i := range 40 {
		if err := r.Register(simple(fmt.Sprintf("tool_number_%02d", i), "x", fiveProps)); err != nil {
			b.Fatal(err)
		}
	}
	for _, name := range []string{"tool_number_07", "ToolNumber07", "tool_numbr_07"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := r.Resolve(name); !ok {
					b.Fatal("not resolved")
				}
			}
		})
	}
}

func BenchmarkPrepare(b *testing.B) {
	s := mustSchema(b, fiveProps)
	for _, bc := range []struct{ name, raw string }{
		{"valid", `{"query":"late orders","limit":20,"status":"paid","since":"2024-01-01","exact":false}`},
		{"coerced", `{"query":"late orders","limit":"20","status":"Paid","since":"2024年1月1日","exact":"no"}`},
		{"invalid", `{"limit":0,"status":"lost","since":"someday"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = s.Prepare(bc.raw)
			}
		})
	}
}
