// Package tracetest is an OpenTelemetry collector for tests: an HTTP
// server that takes OTLP/HTTP JSON exports, as hermes's trace package
// sends them, and keeps the spans and the headers that came with them.
package tracetest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Span is one received span, with its attributes flattened to strings
// (integers arrive as decimal strings in OTLP JSON).
type Span struct {
	TraceID, SpanID, ParentSpanID string
	Name                          string
	Kind                          int
	StatusCode                    int
	StatusMessage                 string
	Attrs                         map[string]string
	Service                       string
}

// Collector is a running test collector.
type Collector struct {
	*httptest.Server
	mu      sync.Mutex
	spans   []Span
	headers []http.Header
	// changed is closed, and replaced, when spans arrive.
	changed chan struct{}
	// Status, when set before exports arrive, is what the collector
	// answers instead of 200.
	Status int
}

// New starts a Collector; Close stops it.
func New() *Collector {
	c := &Collector{changed: make(chan struct{})}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	return c
}

// serve takes one export.
func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "want POST /v1/traces with application/json", http.StatusBadRequest)
		return
	}
	var req struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []keyValue `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []struct {
					TraceID      string     `json:"traceId"`
					SpanID       string     `json:"spanId"`
					ParentSpanID string     `json:"parentSpanId"`
					Name         string     `json:"name"`
					Kind         int        `json:"kind"`
					Attributes   []keyValue `json:"attributes"`
					Status       struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers = append(c.headers, r.Header.Clone())
	if c.Status != 0 {
		w.WriteHeader(c.Status)
		return
	}
	for _, rs := range req.ResourceSpans {
		service := flatten(rs.Resource.Attributes)["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, Span{TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID,
					Name: s.Name, Kind: s.Kind, StatusCode: s.Status.Code, StatusMessage: s.Status.Message,
					Attrs: flatten(s.Attributes), Service: service})
			}
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}

// Wait returns the spans received once there are at least n, or what
// there is when ctx ends.
func (c *Collector) Wait(ctx context.Context, n int) []Span {
	for {
		c.mu.Lock()
		spans, changed := append([]Span(nil), c.spans...), c.changed
		c.mu.Unlock()
		if len(spans) >= n {
			return spans
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return spans
		}
	}
}

// Spans returns the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Headers returns the headers of every export received so far.
func (c *Collector) Headers() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.headers...)
}

// keyValue is an OTLP attribute as JSON carries it.
type keyValue struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    *string  `json:"intValue"`
		DoubleValue *float64 `json:"doubleValue"`
		BoolValue   *bool    `json:"boolValue"`
		ArrayValue  *struct {
			Values []struct {
				StringValue string `json:"stringValue"`
			} `json:"values"`
		} `json:"arrayValue"`
	} `json:"value"`
}

// flatten turns attributes into strings; a list joins with ",".
func flatten(kvs []keyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.Value
		switch {
		case v.StringValue != nil:
			out[kv.Key] = *v.StringValue
		case v.IntValue != nil:
			out[kv.Key] = *v.IntValue
		case v.DoubleValue != nil:
			out[kv.Key] = jsonNumber(*v.DoubleValue)
		case v.BoolValue != nil:
			out[kv.Key] = map[bool]string{true: "true", false: "false"}[*v.BoolValue]
		case v.ArrayValue != nil:
			s := ""
			for i, e := range v.ArrayValue.Values {
				if i > 0 {
					s += ","
				}
				s += e.StringValue
			}
			out[kv.Key] = s
		}
	}
	return out
}

// jsonNumber formats f as JSON would.
func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
