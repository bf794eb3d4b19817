package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
)

// A session's history is read whole once; later turns read only what
// was added since, also by another writer, and a session deleted and
// made again under its id is read whole again.
func TestHistoryReadOnceThenWhatCameSince(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	counter := &readCounter{Store: st}
	e := engine.New(engine.Options{
		Store:  counter,
		Models: model(srv),
		Tools:  engine.Tools{Registry: registry(t, echoTool{})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")},
	})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "re: " + r.LastUserText()} })
	turn := func(id, text string) string {
		t.Helper()
		res, err := e.Turn(ctx, id, engine.Input{Text: text, Source: "api"}, nil)
		if err != nil || res.Final != "re: "+text {
			t.Fatalf("turn %q: %v %+v", text, err, res)
		}
		return res.SessionID
	}
	sent := func() []string {
		reqs := srv.Requests()
		var texts []string
		for _, m := range reqs[len(reqs)-1].Messages[1:] {
			texts = append(texts, m.Text())
		}
		return texts
	}
	id := turn("", "one")
	turn(id, "two")
	turn(id, "three")
	if n := counter.reads.Load(); n != 1 {
		t.Errorf("three turns read the whole history %d times, want once", n)
	}
	if got := sent(); len(got) != 5 || got[0] != "one" || got[3] != "re: two" || got[4] != "three" {
		t.Errorf("the third turn sent %q", got)
	}

	// Another writer (another hermes process) adds to the session.
	if err := st.Append(ctx, id, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("from elsewhere")}}},
		&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("noted")}}}); err != nil {
		t.Fatal(err)
	}
	turn(id, "four")
	if got := sent(); len(got) != 9 || got[6] != "from elsewhere" || got[7] != "noted" || got[8] != "four" {
		t.Errorf("after another writer, the turn sent %q", got)
	}

	// The session is deleted and made again under the same id.
	if err := st.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, &session.Session{ID: id, Source: "api"}); err != nil {
		t.Fatal(err)
	}
	turn(id, "afresh")
	if got := sent(); len(got) != 1 || got[0] != "afresh" {
		t.Errorf("a session made again sent the old history: %q", got)
	}
}

// TestLockedRunsBeforeTheHistoryIsRead: what Input.Locked changes in
// the session (here, a dead attempt's message rewound) is what the
// turn's model sees, also when the history was kept from an earlier
// turn; an error from it ends the turn with nothing stored.
func TestLockedRunsBeforeTheHistoryIsRead(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{Store: st, Models: model(srv), Tools: engine.Tools{Registry: registry(t, echoTool{})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")}})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "re: " + r.LastUserText()} })
	res, err := e.Turn(ctx, "", engine.Input{Text: "one", Source: "api"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionID
	msgs, _ := st.Messages(ctx, id)
	base := msgs[len(msgs)-1].ID
	// A replica that died left its attempt's message behind.
	if err := st.Append(ctx, id, &session.Message{Message: llm.UserMessage("two")}); err != nil {
		t.Fatal(err)
	}
	var lockedID string
	res, err = e.Turn(ctx, id, engine.Input{Text: "two", Source: "api", Locked: func(ctx context.Context, sid string) error {
		lockedID = sid
		_, err := st.Rewind(ctx, sid, base)
		return err
	}}, nil)
	if err != nil || res.Final != "re: two" || lockedID != id {
		t.Fatalf("turn after the rewind: %v %+v (Locked told %q)", err, res, lockedID)
	}
	reqs := srv.Requests()
	var sent []string
	for _, m := range reqs[len(reqs)-1].Messages[1:] {
		sent = append(sent, m.Text())
	}
	if len(sent) != 3 || sent[2] != "two" {
		t.Errorf("the model was sent %q, want one, re: one, two", sent)
	}
	before, _ := st.Messages(ctx, id)
	if _, err := e.Turn(ctx, id, engine.Input{Text: "three", Source: "api", Locked: func(context.Context, string) error {
		return errors.New("refused")
	}}, nil); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a Locked error: %v", err)
	}
	if after, _ := st.Messages(ctx, id); len(after) != len(before) {
		t.Errorf("a turn Locked refused stored %d messages", len(after)-len(before))
	}
}
