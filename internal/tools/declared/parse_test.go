package declared

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// seedExample is seed 003's example of the tools file format, verbatim
// (the end-to-end tests of the binary use it too).
var seedExample = func() string {
	b, err := os.ReadFile("testdata/seed-orders.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestSeedExample(t *testing.T) {
	api := newAPI(t, jsonReply(200, `{"items":[{"id":"o-1"}]}`))
	h := newHome(t)
	h.env["ORDERS_API"] = api.URL
	h.env["ORDERS_TOKEN"] = "tok-123456"
	h.load("orders.yaml", seedExample)

	tl, ok := h.reg.Get("search_orders")
	if !ok {
		t.Fatal("search_orders is not registered")
	}
	s := tl.Spec()
	if s.Toolset != "declared" || s.Timeout.String() != "10s" || s.Retry.Attempts != 2 ||
		len(s.Retry.Backoff) != 2 || s.Retry.Backoff[1].String() != "10s" || !s.Idempotent || !s.ParallelSafe {
		t.Errorf("spec = %+v", s)
	}
	var schema map[string]any
	if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("parameters %s: %v", s.Parameters, err)
	}
	got := h.call(context.Background(), "search_orders", `{"status":"paid","start_date":"2024-01-01"}`)
	if d := got.(map[string]any)["data"].([]any); len(d) != 1 {
		t.Errorf("data = %v", got)
	}
	q := neturl.Values(api.requests()[0].query)
	if q.Get("status") != "paid" || q.Get("from") != "2024-01-01" || q.Has("user_id") {
		t.Errorf("query = %v", q)
	}
	if api.requests()[0].auth != "Bearer tok-123456" {
		t.Errorf("auth = %q", api.requests()[0].auth)
	}

	du, ok := h.reg.Get("disk_report")
	if !ok {
		t.Fatal("disk_report is not registered")
	}
	if du.Spec().ParallelSafe || du.Spec().Idempotent {
		t.Errorf("a command tool is neither parallel-safe nor idempotent unless declared: %+v", du.Spec())
	}
	data := h.call(context.Background(), "disk_report", `{"path":"`+h.tools+`"}`).(map[string]any)
	if !strings.Contains(data["stdout"].(string), h.tools) {
		t.Errorf("du output = %v", data)
	}
}

func TestLoadErrors(t *testing.T) {
	const head = "tools:\n  - name: t1\n    description: d\n    parameters: {type: object, properties: {start_date: {type: string}, status: {type: string}}}\n"
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"unknown template field", head + "    http:\n      url: http://x/\n      query:\n        from: \"{{.start_dat}}\"\n",
			[]string{`tools/bad.yaml:8: tool "t1": http.query.from: template refers to .start_dat, which is not a parameter (parameters: start_date, status)`}},
		{"unknown field in url", head + "    http: {url: \"http://x/{{.nope}}\"}\n",
			[]string{`tools/bad.yaml:5: tool "t1": http.url: template refers to .nope`}},
		{"field inside range is fine, $ field is not", head + "    command: {argv: [echo, \"{{range .status}}{{.x}}{{$.y}}{{end}}\"]}\n",
			[]string{`tools/bad.yaml:5: tool "t1": command.argv[1]: template refers to .y,`}},
		{"bad method", head + "    http: {method: FETCH, url: http://x/}\n",
			[]string{`tools/bad.yaml:5: tool "t1": http.method: "FETCH" is not accepted; use one of GET, POST, PUT, PATCH, DELETE, HEAD`}},
		{"two kinds", head + "    http: {url: http://x/}\n    command: {argv: [ls]}\n",
			[]string{`tool "t1": http: a tool needs exactly one of http:, command: or sql:, it has 2`}},
		{"no kind", head, []string{`it has 0`}},
		{"bad schema", "tools:\n  - name: t1\n    description: d\n    parameters: {type: array}\n    command: {argv: [ls]}\n",
			[]string{`tools/bad.yaml:4: tool "t1": parameters: top-level "type" is "array", want "object"`}},
		{"bad name", "tools:\n  - name: bad name!\n    description: d\n    command: {argv: [ls]}\n",
			[]string{`tools/bad.yaml:2: tool "bad name!": name: "bad name!" is not a valid tool name`}},
		{"empty description", "tools:\n  - name: t1\n    description: \"\"\n    command: {argv: [ls]}\n",
			[]string{`tools/bad.yaml:3: tool "t1": description: is empty`}},
		{"template syntax", head + "    command: {argv: [\"{{.status\"]}\n", []string{`command.argv[0]: template "{{.status" does not parse`}},
		{"unknown key", head + "    htp: {url: http://x/}\n", []string{`tools/bad.yaml:2: tool "t1": htp: unknown key; accepted keys are name, description`}},
		{"duration without unit", head + "    timeout: 10\n    command: {argv: [ls]}\n", []string{`tools/bad.yaml:5: tool "t1": timeout: 10 has no unit`}},
		{"negative retry", head + "    retry: {attempts: -1}\n    command: {argv: [ls]}\n", []string{`retry.attempts: -1 is negative`}},
		{"approval", head + "    approval: sometimes\n    command: {argv: [ls]}\n", []string{`tools/bad.yaml:5: tool "t1": approval: "sometimes" is not accepted; use never or always`}},
		{"expect", head + "    http: {url: http://x/, expect: [200, 700]}\n", []string{`http.expect[1]: 700 is not an HTTP status code`}},
		{"select", head + "    http: {url: http://x/, select: items}\n", []string{`http.select: "items": a selector starts with "."`}},
		{"empty argv", head + "    command: {argv: []}\n", []string{`command.argv: is empty`}},
		{"output", head + "    command: {argv: [ls], output: xml}\n", []string{`command.output: "xml" is not accepted; use text or json`}},
		{"sql unknown connection", head + "    sql: {connection: nowhere, query: \"select 1\"}\n",
			[]string{`tool "t1": sql.connection: "nowhere" is not declared under connections:`}},
		{"yaml syntax", "tools:\n  - name: x\n    description: a: b\n", []string{`tools/bad.yaml:3: not valid YAML: mapping values are not allowed`}},
		{"tools not a list", "tools: {name: x}\n", []string{`tools/bad.yaml:1: tools: must be a list`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			h.write("bad.yaml", tc.file)
			if err := h.loader.Load(); err != nil {
				t.Fatal(err)
			}
			ps := h.loader.Problems()
			var all []string
			for _, p := range ps {
				all = append(all, p.Error())
			}
			text := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("problems:\n%s\nwant one containing:\n%s", text, w)
				}
			}
			if len(h.reg.All()) != 0 {
				t.Errorf("a bad tool was registered")
			}
		})
	}
}

func TestOneBadToolDoesNotStopTheOthers(t *testing.T) {
	h := newHome(t)
	h.write("mixed.yaml", "tools:\n  - name: good\n    description: d\n    command: {argv: [ls]}\n  - name: bad\n    description: d\n    command: {argv: [\"{{.x}}\"]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.reg.Get("good"); !ok {
		t.Error("good was not registered")
	}
	if _, ok := h.reg.Get("bad"); ok {
		t.Error("bad was registered")
	}
	ps := h.loader.Problems()
	if len(ps) != 1 || ps[0].Tool != "bad" || ps[0].Line != 7 || !strings.Contains(ps[0].Error(), "parameters: none") {
		t.Errorf("problems = %v", ps)
	}
}

func TestDuplicateNamesAcrossFiles(t *testing.T) {
	h := newHome(t)
	h.write("a.yaml", "tools:\n  - name: dup\n    description: first\n    command: {argv: [ls]}\n")
	h.write("b.yaml", "tools:\n  - name: other\n    description: d\n    command: {argv: [ls]}\n  - name: dup\n    description: second\n    command: {argv: [ls]}\n")
	h.write("config.yaml", "model: x\nagent: {max_turns: 3}\ntools:\n  - name: from_config\n    description: d\n    command: {argv: [ls]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	ps := h.loader.Problems()
	if len(ps) != 1 || !strings.Contains(ps[0].Error(), `tools/b.yaml:5: tool "dup": name: "dup" is already declared in tools/a.yaml:2`) {
		t.Errorf("problems = %v", ps)
	}
	if tl, _ := h.reg.Get("dup"); tl == nil || tl.Spec().Description != "first" {
		t.Errorf("dup should be a.yaml's")
	}
	for _, n := range []string{"other", "from_config"} {
		if _, ok := h.reg.Get(n); !ok {
			t.Errorf("%s is not registered", n)
		}
	}
}

func TestNameTakenByBuiltin(t *testing.T) {
	h := newHome(t)
	builtin := &Tool{spec: tool.Spec{Name: "web_search", Description: "builtin", Toolset: "web"}}
	if err := h.reg.Register(builtin); err != nil {
		t.Fatal(err)
	}
	h.write("a.yaml", "tools:\n  - name: web_search\n    description: d\n    command: {argv: [ls]}\n  - name: mine\n    description: d\n    command: {argv: [ls]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	if tl, _ := h.reg.Get("web_search"); tl != builtin {
		t.Error("the built-in tool was replaced")
	}
	if _, ok := h.reg.Get("mine"); !ok {
		t.Error("mine was not registered")
	}
	if ps := h.loader.Problems(); len(ps) != 1 || !strings.Contains(ps[0].Error(), `already taken by a tool of toolset "web"`) {
		t.Errorf("problems = %v", ps)
	}
}

// approver answers ApproveAction and records what it was asked.
type approver struct {
	err                       error
	rule, description, detail string
}

func (a *approver) ApproveCommand(ctx context.Context, command string) error {
	return errors.New("unused")
}

func (a *approver) ApproveAction(ctx context.Context, rule, description, detail string) error {
	a.rule, a.description, a.detail = rule, description, detail
	return a.err
}

func TestApprovalAlways(t *testing.T) {
	api := newAPI(t, jsonReply(200, `{"ok":true}`))
	h := newHome(t)
	h.env["API"] = api.URL
	h.env["DELETE_TOKEN"] = "very-secret"
	h.load("a.yaml", `tools:
  - name: delete_user
    description: Delete a user.
    parameters: {type: object, properties: {id: {type: string}}, required: [id]}
    approval: always
    http: {method: DELETE, url: "${API}/users/{{.id}}", headers: {X-Token: "${DELETE_TOKEN}"}}
`)
	call := func(a tool.Approver) tool.Outcome {
		ctx := tool.WithInvocation(context.Background(), tool.Invocation{Approver: a})
		o, _ := h.run(ctx, "delete_user", `{"id":"u1"}`)
		return o
	}
	no := &approver{err: errors.New("the user said no")}
	if o := call(no); o.Result.ErrorCode != tool.CodeDenied || !strings.Contains(o.Result.Message, "the user said no") {
		t.Errorf("denied: got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
	if no.rule != "tool:delete_user" || no.description != "declared tool delete_user is marked approval: always" ||
		!strings.Contains(no.detail, "DELETE "+api.URL+"/users/u1") || !strings.Contains(no.detail, "X-Token: ${DELETE_TOKEN}") ||
		strings.Contains(no.detail, "very-secret") {
		t.Errorf("asked %q %q %q", no.rule, no.description, no.detail)
	}
	if n := len(api.requests()); n != 0 {
		t.Fatalf("a denied call reached the server %d times", n)
	}
	if o := call(&approver{}); o.Result.Status != tool.StatusOK {
		t.Errorf("allowed: got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
	if n := len(api.requests()); n != 1 || api.requests()[0].method != http.MethodDelete {
		t.Errorf("server saw %d requests", n)
	}
	if o := call(nil); o.Result.ErrorCode != tool.CodeDenied || !strings.Contains(o.Result.Message, "nobody can approve it here") {
		t.Errorf("no approver: got %s %q", o.Result.ErrorCode, o.Result.Message)
	}
}

func TestTemplateHelpers(t *testing.T) {
	props := map[string]any{"a": map[string]any{}, "tags": map[string]any{}, "n": map[string]any{}, "q": map[string]any{}}
	for _, tc := range []struct {
		src  string
		esc  escaping
		args map[string]any
		want string
	}{
		{`{{default "10" .n}}`, escNone, map[string]any{}, "10"},
		{`{{default "10" .n}}`, escNone, map[string]any{"n": json.Number("3")}, "3"},
		{`{{join .tags ","}}`, escNone, map[string]any{"tags": []any{"x", "y"}}, "x,y"},
		{`{{.tags | join "+"}}`, escNone, map[string]any{"tags": []any{"x", "y"}}, "x+y"},
		{`{{json .a}}`, escNone, map[string]any{"a": "say \"hi\""}, `"say \"hi\""`},
		{`{{json .a}}`, escNone, map[string]any{}, `null`},
		{`[{{.a}}]`, escNone, map[string]any{}, `[]`},
		{`{{urlquery .a}}|{{pathescape .a}}`, escNone, map[string]any{"a": "a b/c"}, `a+b%2Fc|a%20b%2Fc`},
		{`{{shellquote .a}}`, escNone, map[string]any{"a": "it's"}, `'it'\''s'`},
		{`http://h/{{.a}}?q={{.q}}`, escURL, map[string]any{"a": "x/y", "q": "1&b=2"}, `http://h/x%2Fy?q=1%26b%3D2`},
		{`echo {{.a}}`, escShell, map[string]any{"a": "x; rm -rf /"}, `echo 'x; rm -rf /'`},
		{`{{if .a}}yes{{else}}no{{end}}`, escNone, map[string]any{}, `no`},
		{`{{.}}`, escNone, map[string]any{"a": "b"}, `{"a":"b"}`},
		{`${HOST:-localhost}/{{.a}}`, escURL, map[string]any{"a": "p q"}, `localhost/p%20q`},
	} {
		var errs []fieldErr
		var refs []envRef
		c := compiler{props: props, refs: &refs, errs: &errs}
		tm := c.template("f", tc.src, tc.esc)
		if len(errs) > 0 {
			t.Errorf("%s: %v", tc.src, errs[0].err)
			continue
		}
		ce, err := resolveEnv(func(string) (string, bool) { return "", false }, refs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tm.render(tc.args, ce)
		if err != nil || got != tc.want {
			t.Errorf("%s over %v = %q, %v; want %q", tc.src, tc.args, got, err, tc.want)
		}
	}
}

func TestInvalidEditKeepsTheLastGoodTool(t *testing.T) {
	h := newHome(t)
	h.load("k.yaml", "tools:\n  - name: keep\n    description: good\n    command: {argv: [ls]}\n  - name: other\n    description: v1\n    command: {argv: [ls]}\n")
	h.write("k.yaml", "tools:\n  - name: keep\n    description: good\n    command: {argv: [\"{{.nope}}\"]}\n  - name: other\n    description: v2\n    command: {argv: [ls]}\n")
	if err := h.loader.Load(); err != nil {
		t.Fatal(err)
	}
	if tl, ok := h.reg.Get("keep"); !ok || tl.Spec().Description != "good" {
		t.Error("the last good version of keep should stay registered")
	}
	if tl, _ := h.reg.Get("other"); tl == nil || tl.Spec().Description != "v2" {
		t.Error("other should be updated")
	}
	if ps := h.loader.Problems(); len(ps) != 1 || ps[0].Tool != "keep" || ps[0].Line != 4 {
		t.Errorf("problems = %v", ps)
	}
}
