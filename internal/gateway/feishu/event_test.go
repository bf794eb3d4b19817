package feishu_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

// postEvent posts a schema 2.0 event as Feishu would and returns the
// status.
func (r *rig) postEvent(t *testing.T, id, eventType string, event any) int {
	t.Helper()
	plain, err := json.Marshal(map[string]any{"schema": "2.0",
		"header": map[string]any{"event_id": id, "event_type": eventType, "token": r.fs.VerificationToken, "app_id": r.fs.AppID},
		"event":  event})
	if err != nil {
		t.Fatal(err)
	}
	status, _ := r.fs.Post(r.fs.Seal(plain))
	return status
}

func message(sender, chatType, msgType, content string, extra map[string]any) map[string]any {
	m := map[string]any{"message_id": "om_1", "chat_id": "oc_g", "chat_type": chatType, "message_type": msgType, "content": content}
	for k, v := range extra {
		m[k] = v
	}
	return map[string]any{"sender": map[string]any{"sender_id": map[string]string{"open_id": "ou_alice"}, "sender_type": sender}, "message": m}
}

// A rich-text message is read as its text; a message in a thread is
// answered in the thread; what carries nothing for the gateway (another
// bot's message, an image, an unknown event) is answered 200 and dropped.
func TestEventShapes(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	post := `{"title":"Plan","content":[[{"tag":"text","text":"step "},{"tag":"a","text":"one","href":"https://x"}],[{"tag":"at","user_id":"@_user_1"},{"tag":"text","text":" go"}]]}`
	for _, tt := range []struct {
		id, kind string
		event    any
	}{
		{"ev_post", "im.message.receive_v1", message("user", "p2p", "post", post, nil)},
		{"ev_thread", "im.message.receive_v1", message("user", "group", "text", `{"text":"in a thread"}`, map[string]any{"root_id": "om_root", "thread_id": "omt_1"})},
		{"ev_bot", "im.message.receive_v1", message("app", "p2p", "text", `{"text":"from a bot"}`, nil)},
		{"ev_image", "im.message.receive_v1", message("user", "p2p", "image", `{"image_key":"img_1"}`, nil)},
		{"ev_bad", "im.message.receive_v1", message("user", "p2p", "text", `not json`, nil)},
		{"ev_other", "im.chat.member.bot.added_v1", map[string]any{"chat_id": "oc_g"}},
	} {
		if status := r.postEvent(t, tt.id, tt.kind, tt.event); status != http.StatusOK {
			t.Errorf("%s: %d", tt.id, status)
		}
	}
	evs := r.delivered()
	if len(evs) != 2 {
		t.Fatalf("events %+v", evs)
	}
	if evs[0].Text != "Plan\nstep one\n@_user_1 go" || evs[0].Chat.Type != gateway.DM {
		t.Errorf("post = %+v", evs[0])
	}
	if evs[1].Chat != (gateway.Chat{ID: "oc_g", Type: gateway.Group, Thread: "om_root"}) || evs[1].Addressed {
		t.Errorf("thread message = %+v", evs[1])
	}
}

// A press on a card sent in a thread is placed in that thread, which the
// callback does not name, so the approval waiting there takes it.
func TestCardPressKeepsTheThread(t *testing.T) {
	r := newRig(t, feishutest.Options{}, nil)
	id, root := r.fs.Message(feishutest.Incoming{ChatID: "oc_g", ChatType: "group", Text: "start"})
	r.waitAnswered(t, id)
	chat := gateway.Chat{ID: "oc_g", Type: gateway.Group, Thread: root}
	ref, err := r.a.Send(t.Context(), chat, gateway.Outgoing{Text: "allow?", Buttons: [][]gateway.Button{{{Text: "Deny", Data: "ap:1:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.fs.Press(ref.ID, feishutest.Alice(), "ap:1:d"); err != nil {
		t.Fatal(err)
	}
	evs := r.delivered()
	if len(evs) != 2 || evs[1].Chat.Thread != root || evs[1].Ref.ID != ref.ID {
		t.Errorf("events %+v", evs)
	}
}
