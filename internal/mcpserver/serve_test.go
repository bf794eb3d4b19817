package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// callSteps are the calls every transport is checked with, in order.
var callSteps = []step{
	{Op: "list"},
	{Op: "call", Name: "lookup_order", Arguments: map[string]any{"order_id": "A-1001", "verbose": "true"}},
	{Op: "call", Name: "lookup_order", Arguments: map[string]any{"verbose": true}},
	{Op: "call", Name: "fail_always"},
	{Op: "call", Name: "delete_scratch"},
	{Op: "call", Name: "greet"},
	{Op: "call", Name: "screenshot"},
	{Op: "call", Name: "whoami"},
	{Op: "call", Name: "hidden_tool"},
}

// checkConformance checks what a real client saw for callSteps.
func checkConformance(t *testing.T, evs []event) {
	t.Helper()
	list := evs[0]
	if got := names(list.Tools); !slices.Equal(got, exposedTools) {
		t.Fatalf("listed tools %v, want %v (sorted, without the unavailable and unselected ones)", got, exposedTools)
	}
	for _, tl := range list.Tools {
		if tl.Name != "lookup_order" {
			continue
		}
		if !sameJSON(t, tl.InputSchema, json.RawMessage(lookupOrderSchema)) {
			t.Errorf("lookup_order inputSchema = %s, want hermes's schema unchanged: %s", tl.InputSchema, lookupOrderSchema)
		}
		if tl.Description != "Looks up an order by its number." {
			t.Errorf("lookup_order description = %q", tl.Description)
		}
	}
	if ann := list.Tools[slices.Index(names(list.Tools), "whoami")].Annotations; ann["readOnlyHint"] != true {
		t.Errorf("whoami annotations = %v, want readOnlyHint for a ParallelSafe tool", ann)
	}

	ok := result(t, evs[1])
	if ok.IsError || ok.StructuredContent["order_id"] != "A-1001" || ok.StructuredContent["verbose"] != true {
		t.Errorf("lookup_order: got %+v, want the order as structured content with verbose coerced to true", ok)
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(ok.Content[0].Text), &text); err != nil || text["status"] != "shipped" {
		t.Errorf("lookup_order text = %q, want the data as JSON (%v)", ok.Content[0].Text, err)
	}

	invalid := result(t, evs[2])
	if !invalid.IsError || !strings.HasPrefix(invalid.Content[0].Text, "invalid_arguments: ") || !strings.Contains(invalid.Content[0].Text, "order_id") {
		t.Errorf("lookup_order without order_id: got %+v, want isError with hermes's invalid_arguments message naming order_id", invalid)
	}

	failed := result(t, evs[3])
	if !failed.IsError || failed.Content[0].Text != "upstream_unavailable: the order service answered 503" {
		t.Errorf("fail_always: got %+v, want isError with \"upstream_unavailable: the order service answered 503\"", failed)
	}
	if len(failed.Content) != 2 || failed.Content[1].Text != `{"exit_code":3}` {
		t.Errorf("fail_always: content %+v, want the error's data as a second part", failed.Content)
	}

	denied := result(t, evs[4])
	if !denied.IsError || !strings.HasPrefix(denied.Content[0].Text, "denied: ") {
		t.Errorf("delete_scratch: got %+v, want the dangerous command denied by the non-interactive policy", denied)
	}

	greeting := result(t, evs[5])
	if greeting.IsError || greeting.Content[0].Text != "hello from hermes" || greeting.StructuredContent != nil {
		t.Errorf("greet: got %+v, want the plain string as text and no structured content", greeting)
	}

	shot := result(t, evs[6])
	if len(shot.Content) != 2 || shot.Content[1].Type != "image" || shot.Content[1].MIMEType != "image/png" {
		t.Fatalf("screenshot: content %+v, want a text part and a PNG image part", shot.Content)
	}
	png, _ := base64.StdEncoding.DecodeString(tinyPNG)
	if got, _ := base64.StdEncoding.DecodeString(shot.Content[1].Data); string(got) != string(png) {
		t.Errorf("screenshot image data differs from the tool's PNG")
	}
	if strings.Contains(shot.Content[0].Text, "base64") || shot.StructuredContent["path"] != "shot.png" || shot.StructuredContent["image_data_url"] != nil {
		t.Errorf("screenshot: text %q structured %v, want the data without the image URL", shot.Content[0].Text, shot.StructuredContent)
	}

	who := result(t, evs[7])
	sid, _ := who.StructuredContent["session_id"].(string)
	if !strings.HasPrefix(sid, sessionPrefix) || who.StructuredContent["workdir"] != testWorkdir {
		t.Errorf("whoami: got %v, want a session ID starting %q and workdir %q", who.StructuredContent, sessionPrefix, testWorkdir)
	}

	if ev := evs[8]; ev.Error == "" && (ev.Result == nil || !ev.Result.IsError) {
		t.Errorf("hidden_tool (unselected) was callable: %+v", ev)
	}
}

// result returns a call's result, failing t when the call was a protocol
// error.
func result(t *testing.T, ev event) *callResult {
	t.Helper()
	if ev.Error != "" || ev.Result == nil {
		t.Fatalf("%s: protocol error %q, want a result", ev.Name, ev.Error)
	}
	if len(ev.Result.Content) == 0 {
		t.Fatalf("%s: empty content", ev.Name)
	}
	return ev.Result
}

// sameJSON reports whether a and b hold the same JSON value.
func sameJSON(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("not JSON: %s", a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}

// TestStdio runs the test binary as an MCP server on stdio, started by the
// official TypeScript client the way Claude Desktop starts hermes.
func TestStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := newPlan(t, "stdio", callSteps...)
	p.Command, p.Env = self, map[string]string{serveEnv: "stdio"}
	checkConformance(t, runClient(t, p))
}
