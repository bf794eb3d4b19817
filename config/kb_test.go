package config

import (
	"strings"
	"testing"
)

// TestKBSection reads kb.sources and refuses entries without a path and
// names hermes kb would not accept, naming key, value and what is.
func TestKBSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": `kb:
  sources:
    - path: ~/docs
      kb: team
      tags: [ops, runbook]
    - path: https://example.com/handbook.html
`}, nil, nil)
	s := l.Config.KB.Sources
	if len(s) != 2 || s[0].Path != "~/docs" || s[0].KB != "team" || strings.Join(s[0].Tags, ",") != "ops,runbook" || s[1].KB != "" {
		t.Errorf("kb.sources = %+v", s)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"kb: {sources: [{kb: team}]}\n", `kb.sources[0].path: "" is not accepted; give a file, a folder or an http(s) URL`},
		{"kb: {sources: [{path: x, kb: my team}]}\n", `kb.sources[0].kb: "my team" is not accepted; use 1–64 letters`},
		{"kb: {sources: [{path: x, tags: [ok, \"a,b\"]}]}\n", `kb.sources[0].tags[1]: "a,b" is not accepted`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
