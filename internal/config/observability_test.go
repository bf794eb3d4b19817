package config

import (
	"fmt"
	"strings"
	"testing"
)

// observability: the listener defaults to loopback, a remote one needs
// the explicit opt-in, the collector's URL and headers are checked, and
// a header's value never shows in an error or a rendering.
func TestObservabilitySection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "observability:\n  metrics_listen: \":9464\"\n  otlp_endpoint: http://localhost:4318\n  otlp_headers:\n    Authorization: \"Bearer ${OTLP_KEY}\"\n"},
		map[string]string{"OTLP_KEY": "otlp-secret-value-1234"}, nil)
	o := l.Config.Observability
	if o.MetricsAddr() != "127.0.0.1:9464" || o.OTLPEndpoint != "http://localhost:4318" || string(o.OTLPHeaders["Authorization"]) != "Bearer otlp-secret-value-1234" {
		t.Errorf("observability = %+v, addr %s", o, o.MetricsAddr())
	}
	if s := fmt.Sprintf("%v %+v", o, o); strings.Contains(s, "otlp-secret-value") {
		t.Errorf("the header's value prints: %s", s)
	}
	remote := mustLoad(t, map[string]string{"config.yaml": "observability: {metrics_listen: \"0.0.0.0:9464\", metrics_allow_remote: true}\n"}, nil, nil)
	if remote.Config.Observability.MetricsAddr() != "0.0.0.0:9464" {
		t.Errorf("remote addr = %s", remote.Config.Observability.MetricsAddr())
	}
	for _, tt := range []struct{ yaml, want string }{
		{"observability: {metrics_listen: \"0.0.0.0:9464\"}\n", `observability.metrics_listen: "0.0.0.0:9464" is not accepted: other machines could read the metrics without a key; listen on 127.0.0.1, or set observability.metrics_allow_remote: true`},
		{"observability: {metrics_listen: \"[::]:9464\"}\n", "observability.metrics_allow_remote: true"},
		{"observability: {metrics_listen: \"metrics.example.com:9464\"}\n", "observability.metrics_allow_remote: true"},
		{"observability: {metrics_listen: \"9464\"}\n", `observability.metrics_listen: "9464" is not accepted; use HOST:PORT`},
		{"observability: {metrics_listen: \"127.0.0.1:\"}\n", `observability.metrics_listen: "127.0.0.1:" is not accepted; use HOST:PORT`},
		{"observability: {otlp_endpoint: \"localhost:4318\"}\n", `observability.otlp_endpoint: "localhost:4318" is not accepted; use the collector's OTLP/HTTP URL`},
		{"observability: {otlp_endpoint: \"grpc://c:4317\"}\n", `observability.otlp_endpoint: "grpc://c:4317" is not accepted`},
		{"observability: {otlp_endpoint: \"https://u:pw-secret@c:4318\"}\n", "credentials do not go in the URL"},
		{"observability: {otlp_headers: {A: b}}\n", "observability.otlp_headers: \"\" is set without observability.otlp_endpoint"},
		{"observability: {otlp_endpoint: \"http://c:4318\", otlp_headers: {\"Bad Name\": b}}\n", `observability.otlp_headers: "Bad Name" is not accepted as a header name`},
		{"observability: {otlp_endpoint: \"http://c:4318\", otlp_headers: {A: \"\"}}\n", "the value of observability.otlp_headers.A is not accepted"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("%q: the error shows the password: %v", tt.yaml, err)
		}
	}
	_, err := loadFiles(t, map[string]string{"config.yaml": "observability: {otlp_endpoint: \"http://c:4318\", otlp_headers: {A: \"line-one-secret-value\\nline two\"}}\n"}, nil, nil)
	if err == nil || strings.Contains(err.Error(), "line-one-secret-value") {
		t.Errorf("a header value with a line break: %v, want an error that does not show it", err)
	}
}
