package redact

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/sharedtest"
)

// openShared opens a shared conformance file (see sharedtest), skipping
// the test when there is none.
func openShared(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(sharedtest.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// readJSONL decodes each line of a shared conformance file into a T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f := openShared(t, name)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		out = append(out, v)
	}
	return out
}

type redactCase struct {
	Input      string   `json:"input"`
	MustRedact []string `json:"must_redact"`
	MustKeep   []string `json:"must_keep"`
	Source     string   `json:"source"`
}

type injectionCase struct {
	Input  string `json:"input"`
	Flag   bool   `json:"flag"`
	Source string `json:"source"`
}

// redactExceptions are the vectors hermes deliberately disagrees with
// Hermes Agent on, keyed by input: why, and what Secrets gives instead.
// Hermes lets tokens in web URLs' queries and fragments and passwords in
// their user-info through, so that its agent can follow magic links and
// OAuth callbacks. hermes redacts them: a tool result reaches the model
// and the logs, and a leaked token costs the user the token.
func redactExceptions() map[string]struct{ why, want string } {
	return map[string]struct{ why, want string }{
		"Fetching https://example.com/api?access_token=opaque_value_here_1234&format=json": {
			"an access token in a query string is a credential wherever the URL is printed",
			"Fetching https://example.com/api?access_token=[REDACTED:query_secret]&format=json"},
		"https://s3.amazonaws.com/bucket/k?signature=LONG_PRESIGNED_SIG&id=public": {
			"a pre-signed URL's signature grants access to the object until it expires",
			"https://s3.amazonaws.com/bucket/k?signature=[REDACTED:query_secret]&id=public"},
		"wss://api.example.com/ws?token=opaqueWsToken123": {
			"a WebSocket URL's token authenticates whoever connects with it",
			"wss://api.example.com/ws?token=[REDACTED:query_secret]"},
		"https://x.test/#access_token=FRAG_SECRET&view=public": {
			"an OAuth implicit-flow token in a fragment is a bearer credential",
			"https://x.test/#access_token=[REDACTED:query_secret]&view=public"},
		"/resume?token=REL_SECRET&view=public": {
			"a token in a relative URL's query is a credential too",
			"/resume?token=[REDACTED:query_secret]&view=public"},
		"/resume?token=SEMICOLON_SECRET;view=public": {
			"likewise; the value ends at ; and the public parameter after it is kept",
			"/resume?token=[REDACTED:query_secret];view=public"},
		"URL: https://user:supersecretpw@host.example.com/path": {
			"a password in a URL's user-info is a password; the user name is kept",
			"URL: https://user:[REDACTED:password]@host.example.com/path"},
		"https://example.com/api?password=opaqueval123&format=json": {
			"a password in a query string is a password",
			"https://example.com/api?password=[REDACTED:query_secret]&format=json"},
	}
}

// TestHermesRedactCases checks Secrets against Hermes Agent's redaction
// vectors: every one must agree but the listed exceptions, which must
// still disagree, in the way listed, and agreement must stay at 95 % or
// more. Each vector is redacted twice over: as text, and as a terminal
// result reaches the model, inside a JSON envelope (see JSON), where it
// must come out the same.
func TestHermesRedactCases(t *testing.T) {
	cases := readJSONL[redactCase](t, "hermes-redact-cases.jsonl")
	for _, mode := range []struct {
		name   string
		redact func(string) string
	}{
		{"text", Secrets},
		{"terminal result", asTerminalResult},
	} {
		t.Run(mode.name, func(t *testing.T) { checkRedactCases(t, cases, mode.redact) })
	}
}

// asTerminalResult redacts text as the output of a terminal command in
// a tool result, and returns the output the model reads.
func asTerminalResult(text string) string {
	doc, _ := json.Marshal(map[string]any{"status": "ok", "data": map[string]any{"output": text + "\n", "exit_code": 0}})
	var res struct {
		Data struct {
			Output string `json:"output"`
		} `json:"data"`
	}
	if err := json.Unmarshal(JSON(doc, Secrets), &res); err != nil {
		return "invalid JSON: " + err.Error()
	}
	return strings.TrimSuffix(res.Data.Output, "\n")
}

func checkRedactCases(t *testing.T, cases []redactCase, redact func(string) string) {
	exceptions := redactExceptions()
	agree, seen := 0, map[string]bool{}
	for _, c := range cases {
		got := redact(c.Input)
		var bad []string
		for _, s := range c.MustRedact {
			if strings.Contains(got, s) {
				bad = append(bad, "kept secret "+s)
			}
		}
		for _, s := range c.MustKeep {
			if !strings.Contains(got, s) {
				bad = append(bad, "lost "+s)
			}
		}
		name := c.Source[strings.LastIndex(c.Source, "::")+3:]
		ex, listed := exceptions[c.Input]
		seen[c.Input] = true
		switch {
		case listed && len(bad) == 0:
			t.Errorf("%s\n  input %q\n  agrees now but is listed as an exception (%s)", name, c.Input, ex.why)
		case listed && got != ex.want:
			t.Errorf("%s\n  input %q\n  got   %q\n  want  %q (%s)", name, c.Input, got, ex.want, ex.why)
		case !listed && len(bad) > 0:
			t.Errorf("%s\n  input %q\n  got   %q\n  %s", name, c.Input, got, strings.Join(bad, "; "))
		}
		if len(bad) == 0 {
			agree++
		}
	}
	for in := range exceptions {
		if !seen[in] {
			t.Errorf("exception %q is not among the vectors", in)
		}
	}
	t.Logf("agree on %d of %d", agree, len(cases))
	if agree*100 < 95*len(cases) {
		t.Errorf("agreement %d of %d is under 95 %%", agree, len(cases))
	}
}

func TestHermesInjectionCases(t *testing.T) {
	cases := readJSONL[injectionCase](t, "hermes-injection-cases.jsonl")
	agree := 0
	for _, c := range cases {
		reason, found := ScanInjection(c.Input)
		if found == c.Flag {
			agree++
			continue
		}
		t.Errorf("%s\n  input %q flag %v got %v %s", c.Source[strings.LastIndex(c.Source, "::")+3:], c.Input, c.Flag, found, reason)
	}
	t.Logf("agree on %d of %d", agree, len(cases))
}
