package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

func TestRenderShrinksLongestString(t *testing.T) {
	data := map[string]any{
		"stdout":    strings.Repeat("行\n", 5000),
		"stderr":    strings.Repeat("e", 300),
		"exit_code": 0,
	}
	res := Result{Status: StatusError, ErrorCode: CodeInternal, Message: "exit status 1", Data: data}
	out, cut := render(res, 2000)
	if !cut {
		t.Fatal("render did not cut")
	}
	if n := utf8.RuneCountInString(out); n > 2000 {
		t.Errorf("rendered %d characters, limit 2000", n)
	}
	var env struct {
		Status    string         `json:"status"`
		Data      map[string]any `json:"data"`
		ErrorCode string         `json:"error_code"`
		Message   string         `json:"message"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatalf("cut envelope is not JSON: %v\n%s", err, out)
	}
	if env.Status != "error" || env.ErrorCode != "internal" {
		t.Errorf("envelope lost its status: %+v", env)
	}
	if !strings.HasPrefix(env.Message, "exit status 1 (output cut: ") || !strings.Contains(env.Message, askForLess) {
		t.Errorf("message = %q", env.Message)
	}
	if env.Data["stderr"] != data["stderr"] {
		t.Error("a short field was cut while a long one was left")
	}
	if s := env.Data["stdout"].(string); utf8.RuneCountInString(s) < 800 || !strings.HasPrefix(s, "行\n行\n") || !strings.Contains(s, "characters cut]") {
		t.Errorf("stdout = %.80q...", s)
	}
}

func TestRenderStringData(t *testing.T) {
	out, cut := render(OK(strings.Repeat("a", 500)), 200)
	var env map[string]string
	if !cut || json.Unmarshal([]byte(out), &env) != nil || utf8.RuneCountInString(out) > 200 {
		t.Fatalf("render = %q, %v", out, cut)
	}
	if !strings.HasSuffix(env["data"], "characters cut]") {
		t.Errorf("data = %q", env["data"])
	}
}

func TestRenderManySmallItemsFallsBack(t *testing.T) {
	rows := make([]map[string]int, 2000)
	for i := range rows {
		rows[i] = map[string]int{"id": i}
	}
	out, cut := render(OK(rows), 1000)
	if !cut || utf8.RuneCountInString(out) > 1000 {
		t.Fatalf("render: cut=%v, %d characters", cut, utf8.RuneCountInString(out))
	}
	if !strings.HasPrefix(out, `{"status":"ok","data":[{"id":0},`) {
		t.Errorf("output does not start with the data: %.60s", out)
	}
	if !strings.Contains(out, "\n[output cut: ") || !strings.HasSuffix(out, askForLess+"]") {
		t.Errorf("output does not end with the note: %s", out[len(out)-200:])
	}
}

func TestRenderFits(t *testing.T) {
	res := OK("短")
	if out, cut := render(res, 30); cut || out != res.JSON() {
		t.Errorf("render = %q, %v", out, cut)
	}
}

func TestDispatchOutputLimit(t *testing.T) {
	big := &fakeTool{spec: Spec{Name: "big"}, call: func(context.Context, json.RawMessage) (any, error) {
		return map[string]string{"body": strings.Repeat("x", 5000)}, nil
	}}
	small := &fakeTool{spec: Spec{Name: "small", MaxOutput: 300}, call: big.call}
	d := &Dispatcher{Registry: newRegistry(t, big, small), MaxOutput: 1000, Overrides: map[string]Override{}}
	outs := d.Run(context.Background(), []llm.ToolCall{call("1", "big", ""), call("2", "small", "")}, nil)
	for i, limit := range []int{1000, 300} {
		o := outs[i]
		if !o.Truncated || utf8.RuneCountInString(o.Content) > limit || !json.Valid([]byte(o.Content)) {
			t.Errorf("call %d: truncated=%v, %d characters, limit %d", i, o.Truncated, utf8.RuneCountInString(o.Content), limit)
		}
		if len(o.Result.Data.(map[string]string)["body"]) != 5000 {
			t.Errorf("call %d: Outcome.Result was cut too", i)
		}
	}
	d.Overrides["small"] = Override{MaxOutput: 10_000}
	if o := d.Run(context.Background(), []llm.ToolCall{call("2", "small", "")}, nil)[0]; o.Truncated {
		t.Error("override of MaxOutput ignored")
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 250000: "250,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := GroupDigits(n); got != want {
			t.Errorf("GroupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
