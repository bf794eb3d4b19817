package slack

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/slack/slacktest"
)

func testAdapter(t *testing.T) *Adapter {
	t.Helper()
	a, err := New(Options{BotToken: "xoxb-1-2-abc", AppToken: "xapp-1-A1-2-def"})
	if err != nil {
		t.Fatal(err)
	}
	a.botUser = "UHERMES"
	return a
}

func TestMessageEvents(t *testing.T) {
	a := testAdapter(t)
	ev := func(js string) (gateway.Event, bool) { return a.messageEvent(json.RawMessage(js)) }

	dm, ok := ev(`{"type":"message","channel_type":"im","channel":"D1","user":"U1","ts":"1.1","text":"a &lt; b &amp;&amp; c &gt; d"}`)
	if !ok || dm.Chat != (gateway.Chat{ID: "D1", Type: gateway.DM}) || !dm.Addressed || dm.Text != "a < b && c > d" || dm.ID != "msg:D1:1.1" || dm.MessageID != "1.1" {
		t.Errorf("a DM: %+v %v", dm, ok)
	}
	// A channel message is answered in a thread under it, and the thread
	// is the chat; a reply in a thread stays in the parent's thread.
	ch, _ := ev(`{"type":"message","channel_type":"channel","channel":"C1","user":"U1","ts":"2.1","text":"hi <@UHERMES>"}`)
	if ch.Chat != (gateway.Chat{ID: "C1", Type: gateway.Group, Thread: "2.1"}) || !ch.Addressed {
		t.Errorf("a channel mention: %+v", ch)
	}
	reply, _ := ev(`{"type":"message","channel_type":"channel","channel":"C1","user":"U1","ts":"2.5","thread_ts":"2.1","text":"more","parent_user_id":"UHERMES"}`)
	if reply.Chat.Thread != "2.1" || !reply.Addressed {
		t.Errorf("a reply in the bot's thread: %+v", reply)
	}
	plain, _ := ev(`{"type":"message","channel_type":"channel","channel":"C1","user":"U1","ts":"3.1","text":"just talking about <@UOTHER>"}`)
	if plain.Addressed {
		t.Errorf("a channel message to someone else is addressed: %+v", plain)
	}
	// Slack sends app_mention and message for one mention: one ID.
	mention, ok := ev(`{"type":"app_mention","channel":"C1","user":"U1","ts":"2.1","text":"hi <@UHERMES>"}`)
	if !ok || mention.ID != ch.ID || !mention.Addressed || mention.Chat != ch.Chat {
		t.Errorf("app_mention: %+v, want the ID and chat of %+v", mention, ch)
	}
	broadcast, ok := ev(`{"type":"message","subtype":"thread_broadcast","channel":"C1","user":"U1","ts":"4.1","thread_ts":"2.1","text":"<@UHERMES> also to the channel"}`)
	if !ok || !broadcast.Addressed {
		t.Errorf("a thread_broadcast mention was dropped: %+v", broadcast)
	}

	for name, js := range map[string]string{
		"own post by bot_id":    `{"type":"message","channel":"C1","user":"UX","bot_id":"BHERMES","ts":"5.1","text":"mine"}`,
		"own post by user":      `{"type":"message","channel":"C1","user":"UHERMES","ts":"5.2","text":"mine"}`,
		"an edit":               `{"type":"message","subtype":"message_changed","channel":"C1","ts":"5.3","message":{"user":"U1","text":"edited"}}`,
		"an edit with a user":   `{"type":"message","subtype":"message_changed","channel":"C1","user":"U1","ts":"5.3","text":"edited"}`,
		"a deletion":            `{"type":"message","subtype":"message_deleted","channel":"C1","ts":"5.4"}`,
		"a join":                `{"type":"message","subtype":"channel_join","channel":"C1","user":"U1","ts":"5.5","text":"<@U1> has joined the channel"}`,
		"a group leave":         `{"type":"message","subtype":"group_leave","channel":"G1","user":"U1","ts":"5.6","text":"<@U1> has left"}`,
		"a topic change":        `{"type":"message","subtype":"channel_topic","channel":"C1","user":"U1","ts":"5.7","text":"set the topic"}`,
		"another bot":           `{"type":"message","subtype":"bot_message","channel":"C1","bot_id":"BOTHER","ts":"5.8","text":"beep"}`,
		"a bot as a user":       `{"type":"message","channel":"C1","user":"UBOT2","bot_id":"BOTHER","ts":"5.81","text":"<@UHERMES> beep"}`,
		"a reaction":            `{"type":"reaction_added","user":"U1","reaction":"+1"}`,
		"empty text":            `{"type":"message","channel":"C1","user":"U1","ts":"5.9","text":"  "}`,
		"a file without a link": `{"type":"message","subtype":"file_share","channel":"D1","channel_type":"im","user":"U1","ts":"5.91","text":"","files":[{"id":"F1"}]}`,
		"not JSON":              `[`,
	} {
		if got, ok := ev(js); ok {
			t.Errorf("%s was taken: %+v", name, got)
		}
	}
}

func TestButtonEvents(t *testing.T) {
	a := testAdapter(t)
	press, ok := a.buttonEvent([]byte(`{"type":"block_actions","trigger_id":"T9","user":{"id":"U1","username":"alice"},
		"channel":{"id":"C1"},"container":{"message_ts":"7.1","thread_ts":"2.1"},"message":{"ts":"7.1","thread_ts":"2.1"},
		"actions":[{"action_id":"hermes_0_0","value":"ap:0123456789ab:o","action_ts":"7.2"}]}`))
	want := gateway.Chat{ID: "C1", Type: gateway.Group, Thread: "2.1"}
	if !ok || press.Kind != gateway.KindButton || press.Chat != want || press.Data != "ap:0123456789ab:o" ||
		press.Ref != (gateway.MessageRef{Chat: want, ID: "7.1"}) || press.User.ID != "U1" || press.ID != "act:T9" {
		t.Errorf("press %+v %v", press, ok)
	}
	for name, js := range map[string]string{
		"a view submission": `{"type":"view_submission","user":{"id":"U1"}}`,
		"no actions":        `{"type":"block_actions","user":{"id":"U1"},"channel":{"id":"C1"},"message":{"ts":"7.1"}}`,
		"no user":           `{"type":"block_actions","channel":{"id":"C1"},"message":{"ts":"7.1"},"actions":[{"value":"x"}]}`,
	} {
		if got, ok := a.buttonEvent([]byte(js)); ok {
			t.Errorf("%s was taken: %+v", name, got)
		}
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	const secretish = "xoxp-user-token-1234567890"
	for name, o := range map[string]Options{
		"no bot token":     {AppToken: "xapp-1"},
		"user token":       {BotToken: secretish, AppToken: "xapp-1"},
		"app token as bot": {BotToken: "xapp-1-2", AppToken: "xapp-1"},
		"neither mode":     {BotToken: "xoxb-1"},
		"bad app token":    {BotToken: "xoxb-1", AppToken: secretish},
		"bad base url":     {BotToken: "xoxb-1", AppToken: "xapp-1", BaseURL: "slack.com/api"},
		"relative path":    {BotToken: "xoxb-1", SigningSecret: "s", EventsPath: "slack"},
	} {
		_, err := New(o)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if strings.Contains(err.Error(), secretish) {
			t.Errorf("%s: the error shows the token: %v", name, err)
		}
	}
}

// A shared file becomes the event's media, fetched with the bot token;
// a message of only a file is taken; a link that is not Slack's is never
// sent the token.
func TestSharedFiles(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a := fakeAdapter(t, srv)
	got := make(chan gateway.Event, 1)
	socketRun(t, srv, func(ev gateway.Event) error { got <- ev; return nil })
	srv.Message(slacktest.Incoming{Files: []slacktest.File{{Name: "plan.png", MIME: "image/png", Data: []byte("\x89PNG...")}, {Name: "notes.txt", MIME: "text/plain", Data: []byte("notes")}}})
	ev := <-got
	if ev.Text != "" || len(ev.Media) != 2 || ev.Media[0].Kind != "photo" || ev.Media[1].Kind != "document" || ev.Media[1].Name != "notes.txt" || ev.Media[1].Size != 5 {
		t.Fatalf("event %+v", ev)
	}
	rc, err := ev.Media[1].Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	if string(data) != "notes" {
		t.Errorf("fetched %q", data)
	}

	var asked atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1) }))
	defer evil.Close()
	for _, link := range []string{evil.URL + "/x", "http://files.slack.com/x", "https://slack.com.evil.example/x", "https://files.slack.com@evil.example/x"} {
		m := a.media([]json.RawMessage{json.RawMessage(`{"name":"x","url_private_download":"` + link + `"}`)})
		if len(m) != 1 {
			t.Fatalf("%s: media %+v", link, m)
		}
		if _, err := m[0].Fetch(context.Background()); err == nil || strings.Contains(err.Error(), srv.BotToken) {
			t.Errorf("%s: fetched, or the error shows the token: %v", link, err)
		}
	}
	if asked.Load() != 0 {
		t.Errorf("a host that is not Slack's was asked %d times", asked.Load())
	}
}

// Without a token that may read files Slack answers 200 with its sign-in
// page: that is an error, not the file.
func TestSignInPageIsNotTheFile(t *testing.T) {
	srv := slacktest.New(slacktest.Options{})
	defer srv.Close()
	a, err := New(Options{BotToken: "xoxb-cannot-read-files", AppToken: srv.AppToken, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	link := srv.URL[:len(srv.URL)-len("/api")] + "/files/F1/notes.txt"
	m := a.media([]json.RawMessage{json.RawMessage(`{"name":"notes.txt","mimetype":"text/plain","url_private_download":"` + link + `"}`)})
	if _, err := m[0].Fetch(context.Background()); err == nil || !strings.Contains(err.Error(), "files:read") {
		t.Errorf("Fetch = %v, want an error naming files:read", err)
	}
}
