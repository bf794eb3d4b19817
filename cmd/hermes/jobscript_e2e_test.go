package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A job's script runs with the environment a terminal command gets: no
// provider keys or secrets unless terminal.env_passthrough lets one
// through. Whatever it prints — a passed-through key, hermes's .env read
// from disk — is redacted before it is delivered, recorded in the run
// history or printed, whether the script succeeds or fails.
func TestJobScriptSecrets(t *testing.T) {
	const envKey = "sk-from-the-environment-42"
	const dotenvToken = "acme-0123456789abcdef"
	for _, tc := range []struct {
		name, passthrough, script string
		fails                     bool
		want                      []string
	}{
		// No ${…} in the scripts: config.yaml expands those itself.
		{name: "scrubbed", script: `echo "seen:[$OPENAI_API_KEY]"`, want: []string{"seen:[]"}},
		{name: "passed through", passthrough: "terminal: {env_passthrough: [OPENAI_API_KEY]}\n",
			script: `echo "seen:$OPENAI_API_KEY"`, want: []string{"seen:[REDACTED:OPENAI_API_KEY]"}},
		{name: "read from .env", script: `cat "$HERMES_HOME/.env"`, want: []string{"[REDACTED:ACME_SERVICE_TOKEN]"}},
		{name: "failing", passthrough: "terminal: {env_passthrough: [OPENAI_API_KEY]}\n",
			script: `echo "out:$OPENAI_API_KEY"; echo "err:$OPENAI_API_KEY" >&2; exit 3`, fails: true,
			want: []string{"out:[REDACTED:OPENAI_API_KEY]", "err:[REDACTED:OPENAI_API_KEY]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			h.env = append(h.env, "OPENAI_API_KEY="+envKey)
			h.write(".env", "ACME_SERVICE_TOKEN="+dotenvToken+"\n")
			script := strings.ReplaceAll(tc.script, `"`, `\"`)
			h.write("config.yaml", fmt.Sprintf("%sschedules:\n  peek: {cron: \"@daily\", no_agent: true, deliver: local, script: \"%s\"}\n",
				tc.passthrough, script))
			r := h.hermes("cron", "run", "peek")
			if (r.code != 0) != tc.fails {
				t.Fatalf("cron run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			delivered, _ := os.ReadFile(filepath.Join(h.dir, "deliveries", "peek.md"))
			runs := jobRuns(t, h, "peek")
			if len(runs) != 1 {
				t.Fatalf("%d runs recorded, want 1", len(runs))
			}
			for place, text := range map[string]string{
				"the delivery": string(delivered), "the run history": runs[0].Output + "\n" + runs[0].Error,
				"hermes's output": r.stdout + r.stderr,
			} {
				if strings.Contains(text, envKey) || strings.Contains(text, dotenvToken) {
					t.Errorf("%s holds a secret:\n%s", place, text)
				}
			}
			for _, want := range tc.want {
				if !strings.Contains(string(delivered), want) || !strings.Contains(runs[0].Output+runs[0].Error, want) {
					t.Errorf("want %q in the delivery and the history:\n%s\n%+v", want, delivered, runs[0])
				}
			}
		})
	}
}
