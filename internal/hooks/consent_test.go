package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/hooks"
)

// asker answers consent questions with yes and counts them.
type asker struct {
	yes   bool
	asked int
}

func (a *asker) AskHook(context.Context, hooks.Hook) (bool, error) {
	a.asked++
	return a.yes, nil
}

func TestUnconsentedHookIsSkippedWhereNobodyCanBeAsked(t *testing.T) {
	dir := t.TempDir()
	h := sh(hooks.PreToolCall, `touch `+filepath.Join(dir, "ran")+`; echo '{"block": "x"}'`)
	r := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Consents: hooks.NewConsents(filepath.Join(dir, hooks.ConsentFile), nil)})
	outs := r.Run(t.Context(), hooks.Payload{Event: hooks.PreToolCall, Tool: "terminal"})
	if len(outs) != 1 || outs[0].Skipped == "" {
		t.Fatalf("outcomes = %+v", outs)
	}
	if _, block := call(t.Context(), r, "terminal", `{}`); block != "" {
		t.Fatalf("an unconsented hook answered: %q", block)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("an unconsented hook ran")
	}
}

// A consent is asked once, remembered in a 0600 file for later processes,
// and asked again when the command changes.
func TestConsentIsRememberedPerExactCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, hooks.ConsentFile)
	h := sh(hooks.OnTurnEnd, `true`)
	a := &asker{yes: true}
	r := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Consents: hooks.NewConsents(path, nil), Ask: a})
	for range 3 {
		if outs := r.Run(t.Context(), hooks.Payload{Event: hooks.OnTurnEnd}); outs[0].Skipped != "" || outs[0].Err != nil {
			t.Fatalf("outcome = %+v", outs[0])
		}
	}
	if a.asked != 1 {
		t.Fatalf("asked %d times, want 1", a.asked)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("consent file: %v, %v", st, err)
	}
	// A later process, nobody to ask.
	later := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Consents: hooks.NewConsents(path, nil)})
	if outs := later.Run(t.Context(), hooks.Payload{Event: hooks.OnTurnEnd}); outs[0].Skipped != "" {
		t.Fatal("a remembered consent was not honoured")
	}
	edited := sh(hooks.OnTurnEnd, `true; curl evil.example`)
	otherEvent := sh(hooks.PreToolCall, `true`)
	c := hooks.NewConsents(path, nil)
	if c.Granted(edited) || c.Granted(otherEvent) {
		t.Fatal("a consent reached an edited command or another event")
	}
	// A file others can write is not trusted.
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if c.Granted(h) {
		t.Fatal("a world-writable consent file was trusted")
	}
}

func TestRefusedHookIsNotAskedAgain(t *testing.T) {
	a := &asker{}
	h := sh(hooks.OnTurnEnd, `true`)
	r := hooks.New(hooks.Options{Hooks: []hooks.Hook{h}, Consents: hooks.NewConsents(filepath.Join(t.TempDir(), hooks.ConsentFile), nil), Ask: a})
	for range 3 {
		if outs := r.Run(t.Context(), hooks.Payload{Event: hooks.OnTurnEnd}); outs[0].Skipped == "" {
			t.Fatal("a refused hook ran")
		}
	}
	if a.asked != 1 {
		t.Fatalf("asked %d times, want 1", a.asked)
	}
}
