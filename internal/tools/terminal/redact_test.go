package terminal

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// TestOutputReachesTheModelRedacted runs commands that print secrets and
// code through the dispatcher, as a turn does: what the model reads is a
// valid envelope whose output has each secret masked and each line of
// code as it was, line breaks included.
func TestOutputReachesTheModelRedacted(t *testing.T) {
	tr := newTerminal(t, Options{})
	reg := tool.NewRegistry()
	if err := reg.Register(tr); err != nil {
		t.Fatal(err)
	}
	d := &tool.Dispatcher{Registry: reg, Redact: redact.Secrets}
	dir := t.TempDir()
	cases := []struct{ printed, secret, kept string }{
		{"HOMEASSISTANT_TOKEN=eyJhbGciOiJIUzI1NiJ9.abc123.xyz", "eyJhbGciOiJIUzI1NiJ9", "HOMEASSISTANT_TOKEN="},
		{"ghp_abcdef\u200b1234567890ABCDEF1234567890abcdef", "1234567890ABCDEF", ""},
		{"password: Sup3rS3cret!", "Sup3rS3cret!", "password: "},
		{"git remote set-url origin https://MYPASSWORDWASDISLAYEDHERE@github.com/u/r.git", "MYPASSWORDWASDISLAYEDHERE", "@github.com/u/r.git"},
		{"const secret = await fetchSecret();", "", "const secret = await fetchSecret();"},
		{"num_key_value_heads=8", "", "num_key_value_heads=8"},
	}
	var calls []llm.ToolCall
	for i, c := range cases {
		f := filepath.Join(dir, "out"+string(rune('a'+i)))
		if err := os.WriteFile(f, []byte(c.printed+"\nnext line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal(map[string]string{"command": "cat " + f})
		calls = append(calls, llm.ToolCall{ID: string(rune('a' + i)), Name: "terminal", Arguments: string(args)})
	}
	outs := d.Run(tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s"}), calls, nil)
	for i, o := range outs {
		c := cases[i]
		var env struct {
			Data struct {
				Output string `json:"output"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(o.Content), &env); err != nil {
			t.Fatalf("%q: the model read invalid JSON %s", c.printed, o.Content)
		}
		out := env.Data.Output
		if c.secret != "" && strings.Contains(out, c.secret) {
			t.Errorf("%q: the secret reached the model: %q", c.printed, out)
		}
		if !strings.Contains(out, c.kept) || !strings.Contains(out, "\nnext line") {
			t.Errorf("%q: the model read %q, want %q and the next line kept", c.printed, out, c.kept)
		}
	}
}
