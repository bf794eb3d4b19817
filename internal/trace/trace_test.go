package trace_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/trace"
	"github.com/hermes-go/hermes/internal/trace/tracetest"
)

// newTracer returns a tracer exporting to c, with a long interval so only
// Close or a full batch exports.
func newTracer(t *testing.T, c *tracetest.Collector, opt trace.Options) *trace.Tracer {
	t.Helper()
	opt.Endpoint = c.URL
	if opt.Interval == 0 {
		opt.Interval = time.Hour
	}
	tr, err := trace.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestSpansReachTheCollectorWithTheirParents(t *testing.T) {
	c := tracetest.New()
	defer c.Close()
	tr := newTracer(t, c, trace.Options{Headers: map[string]string{"Authorization": "Bearer collector-key"}})
	ctx, turn := tr.Start(context.Background(), "invoke_agent", trace.KindInternal, trace.String("gen_ai.conversation.id", "s1"))
	_, chat := tr.Start(ctx, "chat m", trace.KindClient, trace.Int("gen_ai.usage.input_tokens", 12))
	chat.Set(trace.Strings("gen_ai.response.finish_reasons", []string{"tool_calls"}), trace.Float("x", 0.25))
	chat.End()
	tool := tr.StartChild(turn, "execute_tool t", trace.KindInternal)
	tool.Fail("timeout", "the tool took too long")
	tool.End()
	tool.End()
	turn.End()
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	spans := c.Spans()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3: %+v", len(spans), spans)
	}
	byName := map[string]tracetest.Span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	root, ch, tl := byName["invoke_agent"], byName["chat m"], byName["execute_tool t"]
	if root.ParentSpanID != "" || len(root.TraceID) != 32 || len(root.SpanID) != 16 {
		t.Errorf("root = %+v, want a root with 16-byte trace and 8-byte span ids in hex", root)
	}
	for _, s := range []tracetest.Span{ch, tl} {
		if s.ParentSpanID != root.SpanID || s.TraceID != root.TraceID {
			t.Errorf("%s: parent %s trace %s, want %s %s", s.Name, s.ParentSpanID, s.TraceID, root.SpanID, root.TraceID)
		}
	}
	if ch.Attrs["gen_ai.usage.input_tokens"] != "12" || ch.Attrs["gen_ai.response.finish_reasons"] != "tool_calls" || ch.Attrs["x"] != "0.25" || ch.Kind != 3 {
		t.Errorf("chat = %+v", ch)
	}
	if tl.StatusCode != 2 || tl.StatusMessage != "the tool took too long" || tl.Attrs["error.type"] != "timeout" {
		t.Errorf("failed tool = %+v, want status 2 with its message and error.type", tl)
	}
	if root.Service != "hermes" || root.Attrs["gen_ai.conversation.id"] != "s1" {
		t.Errorf("root = %+v", root)
	}
	if h := c.Headers(); len(h) != 1 || h[0].Get("Authorization") != "Bearer collector-key" {
		t.Errorf("headers = %v, want the configured Authorization", h)
	}
}

// TestNilTracerRecordsNothing is the path without an endpoint: no span,
// no allocation of a context, nothing to close.
func TestNilTracerRecordsNothing(t *testing.T) {
	var tr *trace.Tracer
	ctx := context.Background()
	got, s := tr.Start(ctx, "x", trace.KindInternal)
	if got != ctx || s != nil {
		t.Fatal("a nil tracer made a span")
	}
	s.Set(trace.String("a", "b"))
	s.Fail("e", "m")
	s.End()
	tr.StartChild(nil, "y", trace.KindInternal).End()
	if err := tr.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		_, sp := tr.Start(ctx, "x", trace.KindInternal)
		sp.End()
	}); n != 0 {
		t.Errorf("%v allocations per span without a tracer, want 0", n)
	}
}

// TestQueueIsBounded ends more spans than the queue holds while the
// collector is slow to be reached: the rest are dropped and counted.
func TestQueueIsBounded(t *testing.T) {
	c := tracetest.New()
	defer c.Close()
	var dropped atomic.Int64
	tr := newTracer(t, c, trace.Options{QueueSize: 10, BatchSize: 1000, Dropped: func(n int) { dropped.Add(int64(n)) }})
	for range 25 {
		_, s := tr.Start(context.Background(), "s", trace.KindInternal)
		s.End()
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := len(c.Spans()); got != 10 {
		t.Errorf("%d spans exported, want the 10 the queue holds", got)
	}
	if dropped.Load() != 15 {
		t.Errorf("%d dropped, want 15", dropped.Load())
	}
	_, s := tr.Start(context.Background(), "late", trace.KindInternal)
	s.End()
	if dropped.Load() != 16 {
		t.Error("a span ended after Close was not counted as dropped")
	}
}

// TestFullBatchesGoAtOnce checks a batch is sent when it is full, not
// only at the interval or Close.
func TestFullBatchesGoAtOnce(t *testing.T) {
	c := tracetest.New()
	defer c.Close()
	tr := newTracer(t, c, trace.Options{BatchSize: 2})
	defer tr.Close(context.Background())
	for range 2 {
		_, s := tr.Start(context.Background(), "s", trace.KindInternal)
		s.End()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if got := c.Wait(ctx, 2); len(got) < 2 {
		t.Fatal("a full batch was not exported before Close")
	}
}

// TestRefusedExportsAreCountedAndHeadersNotLogged makes the collector
// refuse, and checks the log says so without the export's headers.
func TestRefusedExportsAreCountedAndHeadersNotLogged(t *testing.T) {
	c := tracetest.New()
	defer c.Close()
	c.Status = http.StatusUnauthorized
	var log bytes.Buffer
	var dropped atomic.Int64
	tr := newTracer(t, c, trace.Options{Headers: map[string]string{"X-Api-Key": "sekrit-otlp-key-123"},
		Logger: slog.New(slog.NewTextHandler(&log, nil)), Dropped: func(n int) { dropped.Add(int64(n)) }})
	_, s := tr.Start(context.Background(), "s", trace.KindInternal)
	s.End()
	tr.Close(context.Background())
	if dropped.Load() != 1 {
		t.Errorf("dropped = %d, want 1", dropped.Load())
	}
	if !strings.Contains(log.String(), "401") {
		t.Errorf("log = %q, want the collector's answer", log.String())
	}
	if strings.Contains(log.String(), "sekrit-otlp-key-123") {
		t.Errorf("the header's value reached the log: %q", log.String())
	}
}

func TestEndpointsAreChecked(t *testing.T) {
	for _, e := range []string{"", "localhost:4318", "ftp://x/", "http://", "http://user:sekrit@collector:4318"} {
		_, err := trace.New(trace.Options{Endpoint: e})
		if err == nil {
			t.Errorf("endpoint %q accepted", e)
			continue
		}
		if strings.Contains(err.Error(), "sekrit") {
			t.Errorf("the error quotes the password: %v", err)
		}
	}
}

// TestCloseGivesUpWithItsContext uses a collector that never answers.
func TestCloseGivesUpWithItsContext(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-block }))
	defer srv.Close()
	defer close(block)
	tr, err := trace.New(trace.Options{Endpoint: srv.URL, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	_, s := tr.Start(context.Background(), "s", trace.KindInternal)
	s.End()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := tr.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want the context's error", err)
	}
}
