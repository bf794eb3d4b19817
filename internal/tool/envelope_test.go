package tool

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestResultJSON(t *testing.T) {
	tests := []struct {
		name string
		res  Result
		want string
	}{
		{"ok with data", OK(map[string]any{"n": 1}), `{"status":"ok","data":{"n":1}}`},
		{"ok without data", OK(nil), `{"status":"ok"}`},
		{"error", Fail(CodeTimeout, "slow %s", "api"), `{"status":"error","error_code":"timeout","message":"slow api"}`},
		{"error with data", Result{Status: StatusError, Data: "out", ErrorCode: CodeInternal, Message: "m"},
			`{"status":"error","data":"out","error_code":"internal","message":"m"}`},
		{"non-ASCII and HTML kept", OK("订单 <b>&</b> ✓"), `{"status":"ok","data":"订单 <b>&</b> ✓"}`},
		{"zero result is ok", Result{}, `{"status":"ok"}`},
		{"raw message", OK(json.RawMessage(`{"a": [1, 2]}`)), `{"status":"ok","data":{"a":[1,2]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.JSON(); got != tt.want {
				t.Errorf("JSON() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestResultJSONUnencodableData(t *testing.T) {
	for _, data := range []any{make(chan int), json.RawMessage(`{bad`), map[string]any{"f": func() {}}} {
		got := OK(data).JSON()
		var env map[string]string
		if err := json.Unmarshal([]byte(got), &env); err != nil {
			t.Fatalf("fallback envelope is not JSON: %s", got)
		}
		if env["status"] != "error" || env["error_code"] != "internal" || !strings.Contains(env["message"], "could not be encoded") {
			t.Errorf("JSON() of %T = %s, want an internal error envelope", data, got)
		}
	}
}

func TestErrorHelpers(t *testing.T) {
	err := Errorf(CodeDenied, "no %s", "way")
	if err.Error() != "denied: no way" {
		t.Errorf("Error() = %q", err.Error())
	}
	wrapped := errors.Join(errors.New("ctx"), err)
	if te, ok := AsError(wrapped); !ok || te.Code != CodeDenied {
		t.Errorf("AsError(%v) = %v, %v", wrapped, te, ok)
	}
}

func BenchmarkResultJSON(b *testing.B) {
	res := OK(map[string]any{
		"items": []map[string]any{{"id": 1, "title": "订单一", "status": "paid"}, {"id": 2, "title": "Order <two>", "status": "shipped"}},
		"count": 2,
	})
	b.ReportAllocs()
	for b.Loop() {
		_ = res.JSON()
	}
}
