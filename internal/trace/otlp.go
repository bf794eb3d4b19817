package trace

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
)

// The OTLP/HTTP JSON encoding of an export request, as the OpenTelemetry
// protocol specifies it: ids in lower-case hex, 64-bit integers and
// nanosecond times as decimal strings, enums as numbers, field names in
// lowerCamelCase.
type (
	otlpRequest struct {
		ResourceSpans []otlpResourceSpans `json:"resourceSpans"`
	}
	otlpResourceSpans struct {
		Resource   otlpResource     `json:"resource"`
		ScopeSpans []otlpScopeSpans `json:"scopeSpans"`
	}
	otlpResource struct {
		Attributes []otlpKeyValue `json:"attributes"`
	}
	otlpScopeSpans struct {
		Scope otlpScope  `json:"scope"`
		Spans []otlpSpan `json:"spans"`
	}
	otlpScope struct {
		Name string `json:"name"`
	}
	otlpSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		Name              string         `json:"name"`
		Kind              Kind           `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []otlpKeyValue `json:"attributes,omitempty"`
		Status            otlpStatus     `json:"status"`
	}
	otlpStatus struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	otlpKeyValue struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		StringValue *string     `json:"stringValue,omitempty"`
		IntValue    *string     `json:"intValue,omitempty"`
		DoubleValue *float64    `json:"doubleValue,omitempty"`
		BoolValue   *bool       `json:"boolValue,omitempty"`
		ArrayValue  *otlpValues `json:"arrayValue,omitempty"`
	}
	otlpValues struct {
		Values []otlpValue `json:"values"`
	}
)

// The span status codes of OTLP.
const (
	statusOK    = 1
	statusError = 2
)

// encode makes the body of one export.
func encode(service string, spans []*Span) ([]byte, error) {
	out := make([]otlpSpan, len(spans))
	for i, s := range spans {
		o := otlpSpan{
			TraceID: hexID(s.traceID[:]), SpanID: hexID(s.id[:]), Name: s.name, Kind: s.kind,
			StartTimeUnixNano: strconv.FormatInt(s.start.UnixNano(), 10),
			EndTimeUnixNano:   strconv.FormatInt(s.end.UnixNano(), 10),
			Attributes:        keyValues(s.attrs),
			Status:            otlpStatus{Code: statusOK},
		}
		if s.parent != [8]byte{} {
			o.ParentSpanID = hexID(s.parent[:])
		}
		if s.failed {
			o.Status = otlpStatus{Code: statusError, Message: s.message}
		}
		out[i] = o
	}
	return json.Marshal(otlpRequest{ResourceSpans: []otlpResourceSpans{{
		Resource:   otlpResource{Attributes: keyValues([]Attr{String("service.name", service)})},
		ScopeSpans: []otlpScopeSpans{{Scope: otlpScope{Name: "hermes"}, Spans: out}},
	}}})
}

// keyValues encodes attributes; a value of another type is dropped.
func keyValues(attrs []Attr) []otlpKeyValue {
	out := make([]otlpKeyValue, 0, len(attrs))
	for _, a := range attrs {
		if v, ok := value(a.Value); ok {
			out = append(out, otlpKeyValue{Key: a.Key, Value: v})
		}
	}
	return out
}

// value encodes one attribute value.
func value(v any) (otlpValue, bool) {
	switch v := v.(type) {
	case string:
		return otlpValue{StringValue: &v}, true
	case int64:
		s := strconv.FormatInt(v, 10)
		return otlpValue{IntValue: &s}, true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return otlpValue{}, false
		}
		return otlpValue{DoubleValue: &v}, true
	case bool:
		return otlpValue{BoolValue: &v}, true
	case []string:
		vals := make([]otlpValue, len(v))
		for i := range v {
			vals[i] = otlpValue{StringValue: &v[i]}
		}
		return otlpValue{ArrayValue: &otlpValues{Values: vals}}, true
	}
	return otlpValue{}, false
}

// hexID is an id in lower-case hex.
func hexID(b []byte) string { return hex.EncodeToString(b) }
