package telegram_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
)

func TestSendFailuresAreClassified(t *testing.T) {
	h := newHarness(t)
	dm := gateway.Chat{ID: "42", Type: gateway.DM}
	ref, err := h.tg.Send(ctxT(t), dm, gateway.Outgoing{Text: "first"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		setup      func()
		edit       bool
		text       string
		kind       gateway.SendFailure // 0: success
		retryAfter time.Duration
		message    string
	}{
		{name: "flood", setup: func() { h.srv.Flood(42, 0, 9*time.Second) }, kind: gateway.RateLimited, retryAfter: 9 * time.Second, message: "Too Many Requests"},
		{name: "flood on an edit", edit: true, kind: gateway.RateLimited, retryAfter: 9 * time.Second},
		{name: "parse error", setup: func() {
			h.srv.Flood(42, -1, 0)
			h.srv.Fail(42, 400, "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0")
		}, kind: gateway.BadFormat, message: "can't parse entities"},
		{name: "not modified", edit: true, text: "first", kind: 0},
		{name: "not modified by the server's word", edit: true, setup: func() {
			h.srv.Fail(42, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same")
		}, kind: 0},
		{name: "server error", setup: func() { h.srv.Fail(42, 500, "Internal Server Error") }, kind: gateway.Temporary},
		{name: "bad gateway on an edit", edit: true, setup: func() { h.srv.Fail(42, 502, "Bad Gateway") }, kind: gateway.Temporary},
		{name: "too long", text: strings.Repeat("😀", 2049), kind: gateway.Permanent, message: "message is too long"},
		{name: "blocked", setup: func() { h.srv.Block(42) }, kind: gateway.Permanent, message: "bot was blocked by the user"},
	} {
		if tc.setup != nil {
			tc.setup()
		}
		text := tc.text
		if text == "" {
			text = "changed " + tc.name
		}
		if tc.edit {
			err = h.tg.Edit(ctxT(t), ref, gateway.Outgoing{Text: text})
		} else {
			_, err = h.tg.Send(ctxT(t), dm, gateway.Outgoing{Text: text})
		}
		if tc.kind == 0 {
			if err != nil {
				t.Errorf("%s: %v, want success", tc.name, err)
			}
			continue
		}
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != tc.kind || se.RetryAfter != tc.retryAfter || !strings.Contains(se.Message, tc.message) {
			t.Errorf("%s: %#v, want %v retry after %v with %q", tc.name, err, tc.kind, tc.retryAfter, tc.message)
		}
	}
}

func TestMigratedGroupIsPermanentWithTheNewID(t *testing.T) {
	h := newHarness(t)
	h.srv.Migrate(-5, -1001234)
	_, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "-5", Type: gateway.Group}, gateway.Outgoing{Text: "x"})
	var se *gateway.SendError
	if !errors.As(err, &se) || se.Kind != gateway.Permanent || !strings.Contains(se.Message, "-1001234") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(h.logs.String(), "new_chat_id=-1001234") {
		t.Errorf("the migration is not logged: %s", h.logs.String())
	}
}

func TestButtonDataIsCheckedBeforeSending(t *testing.T) {
	h := newHarness(t)
	dm := gateway.Chat{ID: "42", Type: gateway.DM}
	for _, data := range []string{strings.Repeat("é", 32) + "x", strings.Repeat("a", 65), ""} {
		_, err := h.tg.Send(ctxT(t), dm, gateway.Outgoing{Text: "approve?", Buttons: [][]gateway.Button{{{Text: "Yes", Data: data}}}})
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != gateway.Permanent || !strings.Contains(se.Message, `button "Yes"`) || !strings.Contains(se.Message, "1 to 64 bytes") {
			t.Errorf("data of %d bytes: %v", len(data), err)
		}
		if err := h.tg.Edit(ctxT(t), gateway.MessageRef{Chat: dm, ID: "1"}, gateway.Outgoing{Text: "x", Buttons: [][]gateway.Button{{{Text: "Yes", Data: data}}}}); err == nil {
			t.Errorf("edit with data of %d bytes accepted", len(data))
		}
	}
	if n := h.srv.CallCount("sendMessage") + h.srv.CallCount("editMessageText"); n != 0 {
		t.Fatalf("%d calls reached Telegram", n)
	}
	if _, err := h.tg.Send(ctxT(t), dm, gateway.Outgoing{Text: "ok?", Buttons: [][]gateway.Button{{{Text: "Yes", Data: strings.Repeat("é", 32)}}}}); err != nil {
		t.Fatalf("64 bytes refused: %v", err)
	}
}

func TestTopicsTypingAndFiles(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	doc, img := filepath.Join(dir, "report.txt"), filepath.Join(dir, "chart.png")
	_ = os.WriteFile(doc, []byte("report"), 0o600)
	_ = os.WriteFile(img, []byte("png"), 0o600)
	general := gateway.Chat{ID: "-300", Type: gateway.Group, Thread: "1"}
	topic := gateway.Chat{ID: "-300", Type: gateway.Group, Thread: "5"}
	if _, err := h.tg.Send(ctxT(t), general, gateway.Outgoing{Text: "in General"}); err != nil {
		t.Fatalf("General topic: %v", err)
	}
	if err := h.tg.Typing(ctxT(t), general); err != nil {
		t.Fatalf("typing in General: %v", err)
	}
	ref, err := h.tg.Send(ctxT(t), topic, gateway.Outgoing{Text: "see attached", Files: []string{doc, img}, ReplyTo: "99"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.tg.Typing(ctxT(t), topic); err != nil {
		t.Fatal(err)
	}
	sent := h.srv.Sent(-300)
	if len(sent) != 4 || sent[0].MessageThreadID != 0 || sent[1].MessageThreadID != 5 || ref.ID != "2" ||
		sent[2].Document == nil || string(h.srv.FileData(sent[2].Document.FileID)) != "report" ||
		sent[3].Photo == nil || sent[3].MessageThreadID != 5 {
		t.Fatalf("sent %+v, ref %+v", sent, ref)
	}
	if a := h.srv.Actions(); len(a) != 2 || a[0].ThreadID != 0 || a[1].ThreadID != 5 || a[1].Action != "typing" {
		t.Fatalf("actions %+v", a)
	}
	_, err = h.tg.Send(ctxT(t), topic, gateway.Outgoing{Files: []string{filepath.Join(dir, "missing.txt")}})
	if err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("missing file: %v", err)
	}
	// A picture larger than sendPhoto takes goes as a document.
	big := filepath.Join(dir, "huge.png")
	if err := os.WriteFile(big, make([]byte, 10<<20+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.tg.Send(ctxT(t), topic, gateway.Outgoing{Files: []string{big}}); err != nil {
		t.Fatal(err)
	}
	if last := h.srv.Sent(-300); last[len(last)-1].Document == nil {
		t.Errorf("an 11 MB picture was not sent as a document: %+v", last[len(last)-1])
	}
	if _, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "@channel"}, gateway.Outgoing{Text: "x"}); err == nil || !strings.Contains(err.Error(), `chat id "@channel" is not an integer`) {
		t.Fatalf("bad chat id: %v", err)
	}
}

func TestSetCommands(t *testing.T) {
	h := newHarness(t)
	long := strings.Repeat("d", 300)
	if err := h.tg.SetCommands(ctxT(t), []telegram.Command{{Name: "New", Description: "Start a new session"}, {Name: "/usage", Description: long}}); err != nil {
		t.Fatal(err)
	}
	cmds := h.srv.Commands()
	if len(cmds) != 2 || cmds[0].Command != "new" || cmds[1].Command != "usage" || len([]rune(cmds[1].Description)) != 256 {
		t.Fatalf("commands %+v", cmds)
	}
	err := h.tg.SetCommands(ctxT(t), []telegram.Command{{Name: "web-search", Description: "x"}, {Name: strings.Repeat("a", 33), Description: "x"}, {Name: "ok", Description: " "}})
	if err == nil || !strings.Contains(err.Error(), `name "web-search"`) || !strings.Contains(err.Error(), "1 to 32 of a-z") || !strings.Contains(err.Error(), `"ok" has an empty description`) {
		t.Fatalf("bad names: %v", err)
	}
	if h.srv.CallCount("setMyCommands") != 1 {
		t.Fatalf("a refused list reached Telegram")
	}
}

// The token is in every URL; no error and no log line may show it.
func TestTokenNeverInErrorsOrLogs(t *testing.T) {
	const token = "987654:SECRET-token_abc"
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close() // connections are refused
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	for _, tc := range []struct {
		name   string
		base   string
		client *http.Client
		poll   time.Duration
	}{
		{"connection refused", dead.URL, nil, 0},
		{"timeout", hang.URL, &http.Client{Timeout: 50 * time.Millisecond}, 10 * time.Millisecond},
	} {
		h := newHarness(t)
		tg, err := telegram.New(telegram.Options{Token: token, BaseURL: tc.base, Client: tc.client, PollTimeout: tc.poll, Clock: h.clock,
			Logger: slog.New(slog.NewTextHandler(h.logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		_, err = tg.Send(ctxT(t), gateway.Chat{ID: "42"}, gateway.Outgoing{Text: "x"})
		var se *gateway.SendError
		if !errors.As(err, &se) || se.Kind != gateway.Temporary {
			t.Errorf("%s: %v, want a temporary failure", tc.name, err)
		}
		if err != nil && (strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "<token>")) {
			t.Errorf("%s: error shows the token or hides where it went: %v", tc.name, err)
		}
		if err := tg.Answer(ctxT(t), gateway.Event{Raw: "q"}, "x"); err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: answer error %v", tc.name, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- tg.Receive(ctx, func(context.Context, gateway.Event) error { return nil }) }()
		h.clock.BlockUntil(1) // getMe failed and Receive waits to retry
		cancel()
		<-done
		if logs := h.logs.String(); strings.Contains(logs, "SECRET") || !strings.Contains(logs, "getMe failed") {
			t.Errorf("%s: logs show the token or miss the failure:\n%s", tc.name, logs)
		}
	}
	if _, err := telegram.New(telegram.Options{Token: "SECRET"}); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("a malformed token: %v", err)
	}
}

func TestNewChecksOptions(t *testing.T) {
	for _, tc := range []struct {
		o    telegram.Options
		want string
	}{
		{telegram.Options{}, "the token is empty"},
		{telegram.Options{Token: "1:a", BaseURL: "ftp://x"}, `base_url "ftp://x" is not an http or https URL`},
		{telegram.Options{Token: "1:a", BaseURL: "localhost:8081"}, `base_url "localhost:8081"`},
		{telegram.Options{Token: "1:a", Client: &http.Client{Timeout: 10 * time.Second}}, "timeout 10s is not longer than the poll timeout 30s"},
	} {
		if _, err := telegram.New(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
	tg, err := telegram.New(telegram.Options{Token: "1:a"})
	if err != nil {
		t.Fatal(err)
	}
	c := tg.Caps()
	if c.MaxText != 4096 || c.Measure("😀a") != 3 || !c.CanEdit || !c.Buttons || c.MaxButtonData != 64 || c.SendEvery != time.Second || tg.Name() != "telegram" {
		t.Fatalf("caps %+v", c)
	}
}

func TestRefusedTokenEndsReceive(t *testing.T) {
	h := newHarness(t)
	tg, err := telegram.New(telegram.Options{Token: "1:wrong", BaseURL: h.srv.URL, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	err = tg.Receive(ctxT(t), func(context.Context, gateway.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "refused the token (401") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("Receive = %v", err)
	}
}
