package gateway

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A session past the hygiene share is compressed before the turn: the
// turn runs in the child, the chat is bound to it and told. A failed
// compression leaves the turn in the session it had.
func TestRunnerTidiesBeforeTheTurn(t *testing.T) {
	var asked []string
	h := startRunner(t, func(o *Options) {
		o.Tidy = func(_ context.Context, id string) (string, string, error) {
			asked = append(asked, id)
			switch id {
			case "s1":
				return "s1-tidy", "(compressed)", nil
			case "s1-tidy":
				return "", "", errors.New("summarizer down")
			}
			return "", "", nil
		}
	})
	for _, text := range []string{"one", "two", "three"} {
		h.say(dm, owner, text, true)
		h.p.waitUntil(t, "the answer to "+text, func(sent, _ []string) bool { return containsAny(sent, "echo: "+text) })
	}
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	want := []string{"", "s1-tidy", "s1-tidy"}
	for i, id := range h.eng.ids {
		if id != want[i] {
			t.Fatalf("turns ran in %q, want %q", h.eng.ids, want)
		}
	}
	// A new chat has nothing to tidy; the turn in s1 asked, then the one
	// in s1-tidy asked and failed.
	if len(asked) != 2 || asked[0] != "s1" || asked[1] != "s1-tidy" {
		t.Errorf("tidy asked about %q, want s1 then s1-tidy", asked)
	}
	if h.bound[SessionKey("fake", dm, owner, true)] != "s1-tidy" {
		t.Errorf("chat bound to %q, want s1-tidy", h.bound)
	}
	if !containsAny(h.p.sent, "(compressed)") {
		t.Errorf("the chat was not told: %q", h.p.sent)
	}
}

// /model answers through the hook, and the chat's model reaches its
// turns.
func TestRunnerModel(t *testing.T) {
	models := map[string]string{}
	h := startRunner(t, func(o *Options) {
		o.Model = func(_ context.Context, key, name string) string {
			if name == "" {
				return "model: " + models[key]
			}
			models[key] = name
			return "switched to " + name
		}
		o.ChatModel = func(_ context.Context, key string) string { return models[key] }
	})
	h.say(dm, owner, "/model gpt-5-mini", true)
	h.p.waitUntil(t, "the switch", func(sent, _ []string) bool { return containsAny(sent, "switched to gpt-5-mini") })
	h.say(dm, owner, "/model", true)
	h.p.waitUntil(t, "the model", func(sent, _ []string) bool { return containsAny(sent, "model: gpt-5-mini") })
	h.say(dm, owner, "hello", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "echo: hello") })
	h.stop()
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	if len(h.eng.inputs) != 1 || h.eng.inputs[0].Model != "gpt-5-mini" {
		t.Errorf("turns %+v; want one calling gpt-5-mini", h.eng.inputs)
	}
}

// A platform's approvers list decides who may answer its approval
// requests: someone allowed to talk but not on the list is refused; a
// platform without a list lets anyone allowed.
func TestRunnerApproversList(t *testing.T) {
	h := startRunner(t, func(o *Options) {
		o.Approvers = func(platform string) []string {
			if platform == "fake" {
				return []string{"9"}
			}
			return nil
		}
	})
	h.mu.Lock()
	h.paired["9"] = true
	h.mu.Unlock()
	h.say(dm, owner, "rm -rf build", true)
	var data string
	h.p.waitUntil(t, "the approval request", func(sent, _ []string) bool {
		for _, s := range sent {
			if i := strings.Index(s, "[Allow once="); i >= 0 {
				data, _, _ = strings.Cut(s[i+len("[Allow once="):], "]")
				return true
			}
		}
		return false
	})
	h.p.events <- Event{ID: "press-owner", Kind: KindButton, Chat: dm, User: owner, Data: data}
	h.p.waitUntil(t, "the owner's refusal", func(_, answers []string) bool { return len(answers) == 1 })
	h.p.events <- Event{ID: "press-9", Kind: KindButton, Chat: dm, User: User{ID: "9", Name: "ops"}, Data: data}
	h.p.waitUntil(t, "the approval by 9", func(sent, answers []string) bool {
		return len(answers) == 2 && containsAny(sent, "approval: once")
	})
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	if h.p.answers[0] == "Done." || h.p.answers[1] != "Done." {
		t.Errorf("answers %q: want the owner (not an approver here) refused, then 9 done", h.p.answers)
	}
}

// finalOnlyPlatform is a platform where every message is a notification.
type finalOnlyPlatform struct{ *chatPlatform }

func (f finalOnlyPlatform) Caps() Caps { return Caps{MaxText: 4096, FinalOnly: true} }

// On a platform that wants final answers only (email), the text written
// before a tool runs is not sent: one message per turn.
func TestRunnerFinalOnly(t *testing.T) {
	var p finalOnlyPlatform
	h := startRunner(t, func(o *Options) {
		p = finalOnlyPlatform{o.Platforms[0].(*chatPlatform)}
		o.Platforms = []Platform{p}
	})
	h.say(dm, owner, "tool please", true)
	h.p.waitUntil(t, "the answer", func(sent, _ []string) bool { return containsAny(sent, "found it") })
	h.stop()
	if containsAny(h.p.sent, "let me look") || len(h.p.sent) != 1 {
		t.Errorf("sent %q; want only the final text", h.p.sent)
	}
}

// An Inlet gives a handler the running Receive's deliver, and nothing
// before Open or after Close, so early and late posts are refused.
func TestInlet(t *testing.T) {
	var in Inlet
	if in.Take() != nil {
		t.Fatal("a closed inlet gave a deliver")
	}
	got := ""
	in.Open(func(_ context.Context, ev Event) error { got = ev.ID; return nil })
	if d := in.Take(); d == nil || d(context.Background(), Event{ID: "7"}) != nil || got != "7" {
		t.Fatalf("an open inlet did not deliver: %q", got)
	}
	in.Close()
	if in.Take() != nil {
		t.Error("a closed inlet still gave a deliver")
	}
}
