package engine_test

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// What came with a message reaches the model after its text, in the
// message that is stored, and Attach learns the session and whether the
// model sees images; a message of attachments alone is a message too,
// and names the session.
func TestTurnAttach(t *testing.T) {
	srv := llmtest.New(t)
	st, _ := openStore(t)
	e := engine.New(engine.Options{Store: st, Models: namedModels{srv}, Tools: engine.Tools{Registry: registry(t)}})
	t.Cleanup(e.Close)
	ctx := context.Background()
	srv.Enqueue(llmtest.Reply{Text: "a cat"}, llmtest.Reply{Text: "noted"})
	const url = "data:image/jpeg;base64,/9j/AAAA"
	var told []engine.AttachTo
	attach := func(_ context.Context, to engine.AttachTo) ([]llm.Part, error) {
		told = append(told, to)
		if !to.Images {
			return []llm.Part{llm.TextPart("[a photo, saved as /files/photo.jpg]")}, nil
		}
		return []llm.Part{llm.ImagePart(url)}, nil
	}
	res, err := e.Turn(ctx, "", engine.Input{Text: "what is this?", Model: "gpt-4o", Attach: attach}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Turn(ctx, res.SessionID, engine.Input{Model: "text-only-model", Attach: attach}, nil); err != nil {
		t.Fatal(err)
	}
	if len(told) != 2 || told[0] != (engine.AttachTo{SessionID: res.SessionID, Images: true}) || told[1] != (engine.AttachTo{SessionID: res.SessionID}) {
		t.Errorf("Attach was told %+v; want the session %s, with images for gpt-4o only", told, res.SessionID)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	first := reqs[0].Messages[len(reqs[0].Messages)-1]
	if len(first.Content) != 2 || first.Content[0].Text != "what is this?" || first.Content[1].ImageURL != url {
		t.Errorf("the first message is %+v; want the text, then the image", first.Content)
	}
	if got := reqs[1].LastUserText(); got != "[a photo, saved as /files/photo.jpg]" {
		t.Errorf("the message of an attachment alone is %q", got)
	}
	stored, err := st.Messages(ctx, res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 4 || !stored[0].HasImages() || stored[0].Text() != "what is this?" {
		t.Errorf("stored %d messages, the first %+v; want the image kept with the text", len(stored), stored[0].Message)
	}
	s, err := st.Get(ctx, res.SessionID)
	if err != nil || s.Title != "what is this?" {
		t.Errorf("the session's title is %q (%v)", s.Title, err)
	}
}
