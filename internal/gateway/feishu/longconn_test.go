package feishu_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

func longConnection(o *feishu.Options) { o.LongConnection = true; o.VerificationToken = "" }

// Over the long connection: events come down the WebSocket and are
// acked, a payload in parts is put together, a card press gets its toast
// in the ack, a dropped connection is opened again and an event not taken
// is sent again; the client pings.
func TestLongConnection(t *testing.T) {
	r := newRig(t, feishutest.Options{}, longConnection)
	fs := r.fs
	if path, h := r.a.WebhookHandler(); path != "" || h != nil {
		t.Errorf("the long connection serves %q", path)
	}
	id, _ := fs.Message(feishutest.Incoming{Text: "over the socket"})
	r.waitAnswered(t, id)

	fs.Fragment(100)
	long := strings.Repeat("事件 ", 200)
	id2, _ := fs.Message(feishutest.Incoming{Text: long})
	r.waitAnswered(t, id2)
	fs.Fragment(0)

	r.onButton = func(ev gateway.Event) { r.a.Answer(t.Context(), ev, "Done.") }
	ref, err := r.a.Send(t.Context(), alice, gateway.Outgoing{Text: "ok?", Buttons: [][]gateway.Button{{{Text: "Deny", Data: "ap:1:d"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := fs.Press(ref.ID, feishutest.Alice(), "ap:1:d"); err != nil || res.Toast != "Done." {
		t.Errorf("press answered %+v, %v", res, err)
	}

	fs.Disconnect()
	r.wait(t, func() bool { c, _ := fs.Connects(); return c == 2 && fs.Connected() })
	r.mu.Lock()
	r.refuse = 1
	r.mu.Unlock()
	id3, _ := fs.Message(feishutest.Incoming{Text: "after the drop"})
	r.waitAnswered(t, id3)
	if st := fs.Statuses(id3); len(st) != 2 || st[0] != 500 {
		t.Errorf("statuses of an event not taken %v, want 500 then 200", st)
	}

	var texts []string
	for _, ev := range r.delivered() {
		texts = append(texts, ev.Text)
	}
	if len(texts) != 4 || texts[0] != "over the socket" || texts[1] != long || texts[3] != "after the drop" {
		t.Errorf("delivered %q", texts)
	}
	if _, pings := fs.Connects(); pings < 2 {
		t.Errorf("%d pings, want one a connection", pings)
	}
}

// A refusal reconnecting cannot mend (too many connections, credentials
// refused) ends Receive with why.
func TestLongConnectionRefused(t *testing.T) {
	fs := feishutest.New(feishutest.Options{})
	defer fs.Close()
	fs.RefuseHandshake(514, 1000040350, "exceed conn limit")
	for _, tt := range []struct{ secret, want string }{
		{fs.AppSecret, "exceed conn limit"},
		{"wrong-secret", "check app_id and app_secret"},
	} {
		a, err := feishu.New(feishu.Options{AppID: fs.AppID, AppSecret: tt.secret, BaseURL: fs.URL, LongConnection: true})
		if err != nil {
			t.Fatal(err)
		}
		err = a.Receive(t.Context(), func(context.Context, gateway.Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "wrong-secret") {
			t.Errorf("Receive = %v, want an error saying %q", err, tt.want)
		}
	}
}

// A connection that cannot be opened is tried again, and the log says why
// without the ticket in the address's query.
func TestLongConnectionUnreachable(t *testing.T) {
	fs := feishutest.New(feishutest.Options{})
	defer fs.Close()
	fs.HandOut("ws://127.0.0.1:1/ws")
	logs := &syncBuffer{}
	a, err := feishu.New(feishu.Options{AppID: fs.AppID, AppSecret: fs.AppSecret, BaseURL: fs.URL, LongConnection: true,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Receive(ctx, func(context.Context, gateway.Event) error { return nil }) }()
	wctx, wcancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer wcancel()
	fs.Wait(wctx, func() bool { return strings.Contains(logs.String(), "connecting again") })
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Receive = %v", err)
	}
	if !strings.Contains(logs.String(), "127.0.0.1:1/ws") || strings.Contains(logs.String(), "ticket=") {
		t.Errorf("log:\n%s", logs.String())
	}
}
