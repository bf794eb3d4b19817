package discord_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// A button press is an event with the custom_id and the message it was
// on; Answer acknowledges it with a deferred update (type 6) and shows
// the text to the presser alone. The interaction's token stays in the
// adapter: it is not in the event. A press answered twice, or one never
// seen, is an error.
func TestPressIsAnsweredByInteraction(t *testing.T) {
	h := newHarness(t, nil)
	h.receive(t, nil)
	ctx := context.Background()
	const ch, guild = "700", "800"
	h.srv.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "<@1000> go"})
	h.next(t)
	ref, err := h.dc.Send(ctx, gateway.Chat{ID: ch, Type: gateway.Group}, gateway.Outgoing{Text: "approve?",
		Buttons: [][]gateway.Button{{{Text: "Deny", Data: "ap:0123456789ab:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	id := h.srv.Press(ch, ref.ID, discordtest.Alice(), "ap:0123456789ab:d")
	ev := h.next(t)
	if ev.Kind != gateway.KindButton || ev.ID != id || ev.Data != "ap:0123456789ab:d" || ev.Ref.ID != ref.ID || ev.Chat.ID != ch ||
		ev.User.ID != "42" || ev.Raw != id {
		t.Fatalf("press event %+v", ev)
	}
	if strings.Contains(ev.Raw+ev.Data+ev.ID, "itoken") {
		t.Errorf("the interaction token is in the event: %+v", ev)
	}
	if err := h.dc.Answer(ctx, ev, "you are not allowed to answer approval requests here"); err != nil {
		t.Fatal(err)
	}
	cbs, fus := h.srv.Callbacks(), h.srv.Followups()
	if len(cbs) != 1 || cbs[0].Type != 6 || cbs[0].InteractionID != id {
		t.Errorf("callbacks %+v, want one deferred update", cbs)
	}
	if len(fus) != 1 || fus[0].Flags != 64 || !strings.Contains(fus[0].Content, "not allowed") {
		t.Errorf("follow-ups %+v, want the text, ephemeral", fus)
	}
	if err := h.dc.Answer(ctx, ev, "again"); err == nil {
		t.Error("a press was answered twice")
	}
	if err := h.dc.Answer(ctx, gateway.Event{ID: "1", Raw: "12345"}, "x"); err == nil || strings.Contains(err.Error(), "itoken") {
		t.Errorf("answering an unknown press: %v", err)
	}
}
