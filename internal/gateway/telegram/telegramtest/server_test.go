package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

type envelope struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  struct {
		RetryAfter int   `json:"retry_after"`
		MigrateTo  int64 `json:"migrate_to_chat_id"`
	} `json:"parameters"`
}

func call(t *testing.T, s *Server, method string, p map[string]any) envelope {
	t.Helper()
	body, _ := json.Marshal(p)
	resp, err := http.Post(s.URL+"/bot"+s.Token+"/"+method, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e envelope
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.OK != (resp.StatusCode == 200) || (!e.OK && e.ErrorCode != resp.StatusCode) {
		t.Fatalf("%s: status %d with envelope %+v", method, resp.StatusCode, e)
	}
	return e
}

func updates(t *testing.T, e envelope) []Update {
	t.Helper()
	var us []Update
	if err := json.Unmarshal(e.Result, &us); err != nil {
		t.Fatalf("result %s: %v", e.Result, err)
	}
	return us
}

func TestLongPollWaitsForAnUpdateAndOffsetConfirms(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	got := make(chan envelope)
	go func() { got <- call(t, s, "getUpdates", map[string]any{"timeout": 30}) }()
	if err := s.Wait(context.Background(), func() bool { return s.CallCount("getUpdates") == 1 }); err != nil {
		t.Fatal(err)
	}
	_, id := s.UserMessage(Incoming{Text: "hi"})
	us := updates(t, <-got)
	if len(us) != 1 || us[0].UpdateID != id || us[0].Message.Text != "hi" {
		t.Fatalf("poll returned %+v", us)
	}
	// Not confirmed yet: offered again.
	if us := updates(t, call(t, s, "getUpdates", map[string]any{"offset": id})); len(us) != 1 {
		t.Fatalf("unconfirmed update not offered again: %+v", us)
	}
	if us := updates(t, call(t, s, "getUpdates", map[string]any{"offset": id + 1})); len(us) != 0 {
		t.Fatalf("confirmed update offered again: %+v", us)
	}
	if len(s.Pending()) != 0 {
		t.Fatalf("pending after confirmation: %+v", s.Pending())
	}
}

func TestLongPollTimesOutEmpty(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_800_000_000, 0))
	s := New(Options{Clock: clk})
	defer s.Close()
	got := make(chan envelope)
	go func() { got <- call(t, s, "getUpdates", map[string]any{"timeout": 30}) }()
	clk.BlockUntil(1)
	clk.Advance(29 * time.Second)
	select {
	case e := <-got:
		t.Fatalf("the poll ended before its timeout: %+v", e)
	default:
	}
	clk.Advance(time.Second)
	if us := updates(t, <-got); len(us) != 0 {
		t.Fatalf("got %+v", us)
	}
}

func TestOverlappingPollsAndWebhookGet409(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	first := make(chan envelope)
	go func() { first <- call(t, s, "getUpdates", map[string]any{"timeout": 30}) }()
	if err := s.Wait(context.Background(), func() bool { return s.CallCount("getUpdates") == 1 }); err != nil {
		t.Fatal(err)
	}
	// Wait until the first poll holds the queue before starting the second.
	_ = s.Wait(context.Background(), func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.polling != nil })
	second := make(chan envelope)
	go func() { second <- call(t, s, "getUpdates", map[string]any{"timeout": 30}) }()
	if e := <-first; e.ErrorCode != 409 || !strings.HasPrefix(e.Description, "Conflict: terminated by other getUpdates") {
		t.Fatalf("older poll: %+v", e)
	}
	s.UserMessage(Incoming{Text: "x"})
	if us := updates(t, <-second); len(us) != 1 {
		t.Fatalf("newer poll: %+v", us)
	}

	s.SetWebhook("https://example.com/hook")
	if e := call(t, s, "getUpdates", nil); e.ErrorCode != 409 || !strings.Contains(e.Description, "webhook is active") {
		t.Fatalf("poll with a webhook: %+v", e)
	}
	call(t, s, "deleteWebhook", nil)
	if e := call(t, s, "getUpdates", nil); !e.OK {
		t.Fatalf("poll after deleteWebhook: %+v", e)
	}
}

func TestAllowedUpdatesPersist(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	call(t, s, "getUpdates", map[string]any{"allowed_updates": []string{"callback_query"}})
	s.UserMessage(Incoming{Text: "dropped"})
	s.Press(42, 1, Alice(), "d")
	us := updates(t, call(t, s, "getUpdates", nil)) // omitted: the setting persists
	if len(us) != 1 || us[0].CallbackQuery == nil {
		t.Fatalf("got %+v", us)
	}
	if got := s.AllowedUpdates(); len(got) != 1 || got[0] != "callback_query" {
		t.Fatalf("allowed_updates = %v", got)
	}
}

func TestHTMLValidation(t *testing.T) {
	for _, tc := range []struct {
		html, text, err string
	}{
		{html: "<b>bold</b> &amp; <i>it</i>", text: "bold & it"},
		{html: `<pre><code class="language-go">a &lt; b</code></pre>`, text: "a < b"},
		{html: `<a href="https://x.y/?a=1&amp;b=2">l</a> <blockquote>q</blockquote>`, text: "l q"},
		{html: "&#60;&#x3e;&quot;", text: `<>"`},
		{html: "a < b > c", err: `Unsupported start tag "" at byte offset 2`},
		{html: "a < b", err: `Unclosed start tag at byte offset 2`},
		{html: "<script>x</script>", err: `Unsupported start tag "script"`},
		{html: "<b>x", err: `Can't find end tag corresponding to start tag "b"`},
		{html: "<b><i>x</b></i>", err: `Unmatched end tag`},
		{html: "x</b>", err: `Unmatched end tag`},
		{html: "fish & chips", err: `Character entity expected at byte offset 5`},
		{html: "<code><b>x</b></code>", err: `inside "code"`},
		{html: "<a>x</a>", err: `href`},
		{html: "<b", err: `Unclosed start tag`},
	} {
		text, err := parseHTML(tc.html)
		switch {
		case tc.err == "" && (err != nil || text != tc.text):
			t.Errorf("parseHTML(%q) = %q, %v; want %q", tc.html, text, err, tc.text)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseHTML(%q) error = %v; want %q", tc.html, err, tc.err)
		}
	}
}

func TestSendMessageLimits(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	long := strings.Repeat("😀", 2049) // 4098 UTF-16 units, 2049 runes
	for _, tc := range []struct {
		name string
		p    map[string]any
		want string
	}{
		{"too long in UTF-16", map[string]any{"chat_id": 42, "text": long}, "Bad Request: message is too long"},
		{"empty", map[string]any{"chat_id": 42, "text": " "}, "Bad Request: message text is empty"},
		{"bad HTML", map[string]any{"chat_id": 42, "text": "<x>", "parse_mode": "HTML"}, "Bad Request: can't parse entities: Unsupported start tag"},
		{"General topic", map[string]any{"chat_id": -100, "text": "x", "message_thread_id": 1}, "Bad Request: message thread not found"},
		{"callback data 65 bytes", map[string]any{"chat_id": 42, "text": "x", "reply_markup": map[string]any{"inline_keyboard": [][]Button{{{Text: "a", CallbackData: strings.Repeat("é", 32) + "x"}}}}}, "callback data is too long"},
		{"missing reply", map[string]any{"chat_id": 42, "text": "x", "reply_parameters": map[string]any{"message_id": 99}}, "message to be replied not found"},
	} {
		if e := call(t, s, "sendMessage", tc.p); e.OK || e.ErrorCode != 400 || !strings.Contains(e.Description, tc.want) {
			t.Errorf("%s: %+v, want 400 %q", tc.name, e, tc.want)
		}
	}
	ok := call(t, s, "sendMessage", map[string]any{"chat_id": 42, "text": strings.Repeat("😀", 2048),
		"reply_parameters": map[string]any{"message_id": 99, "allow_sending_without_reply": true},
		"reply_markup":     map[string]any{"inline_keyboard": [][]Button{{{Text: "a", CallbackData: strings.Repeat("é", 32)}}}}})
	if !ok.OK {
		t.Fatalf("4096 units and 64 bytes of data refused: %+v", ok)
	}
}

func TestEditNotModifiedAndFlood(t *testing.T) {
	clk := clock.NewFake(time.Unix(1_800_000_000, 0))
	s := New(Options{Clock: clk})
	defer s.Close()
	call(t, s, "sendMessage", map[string]any{"chat_id": 42, "text": "<b>a</b>", "parse_mode": "HTML"})
	edit := map[string]any{"chat_id": 42, "message_id": 1, "text": "<b>a</b>", "parse_mode": "HTML"}
	if e := call(t, s, "editMessageText", edit); e.ErrorCode != 400 || !strings.Contains(e.Description, "message is not modified") {
		t.Fatalf("unchanged edit: %+v", e)
	}
	edit["text"] = "<b>b</b>"
	if e := call(t, s, "editMessageText", edit); !e.OK {
		t.Fatalf("edit: %+v", e)
	}
	if m := s.Sent(42); len(m) != 1 || m[0].Text != "b" || m[0].Edits != 1 {
		t.Fatalf("sent = %+v", m)
	}

	s.Flood(42, 1, 9*time.Second)
	call(t, s, "sendMessage", map[string]any{"chat_id": 42, "text": "one"})
	e := call(t, s, "sendMessage", map[string]any{"chat_id": 42, "text": "two"})
	if e.ErrorCode != 429 || e.Parameters.RetryAfter != 9 {
		t.Fatalf("over budget: %+v", e)
	}
	clk.Advance(4 * time.Second)
	if e := call(t, s, "editMessageText", edit); e.Parameters.RetryAfter != 5 {
		t.Fatalf("during the wait: %+v", e)
	}
	clk.Advance(5 * time.Second)
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": 42, "text": "two"}); !e.OK {
		t.Fatalf("after the wait: %+v", e)
	}
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": 7, "text": "other chat"}); !e.OK {
		t.Fatalf("other chat: %+v", e)
	}
}

func TestFaults(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Fail(5, 500, "Internal Server Error")
	s.Block(6)
	s.Migrate(-7, -1007)
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": 5, "text": "x"}); e.ErrorCode != 500 {
		t.Errorf("fail: %+v", e)
	}
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": 5, "text": "x"}); !e.OK {
		t.Errorf("after the one failure: %+v", e)
	}
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": 6, "text": "x"}); e.ErrorCode != 403 {
		t.Errorf("blocked: %+v", e)
	}
	if e := call(t, s, "sendMessage", map[string]any{"chat_id": -7, "text": "x"}); e.Parameters.MigrateTo != -1007 {
		t.Errorf("migrated: %+v", e)
	}
	resp, err := http.Get(s.URL + "/botWRONG/getMe")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("wrong token: %d", resp.StatusCode)
	}
}

func TestFilesAndUploads(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	m, _ := s.UserMessage(Incoming{Document: &Upload{Name: "a.txt", Data: []byte("hello")}, Caption: "see"})
	var f File
	e := call(t, s, "getFile", map[string]any{"file_id": m.Document.FileID})
	if err := json.Unmarshal(e.Result, &f); err != nil || f.FileSize != 5 {
		t.Fatalf("getFile: %+v %v", e, err)
	}
	resp, err := http.Get(s.URL + "/file/bot" + s.Token + "/" + f.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(data) != "hello" {
		t.Fatalf("download = %q", data)
	}
	big, _ := s.UserMessage(Incoming{Document: &Upload{Name: "big.bin", Data: []byte("x"), Size: MaxDownload + 1}})
	if e := call(t, s, "getFile", map[string]any{"file_id": big.Document.FileID}); e.Description != "Bad Request: file is too big" {
		t.Fatalf("big getFile: %+v", e)
	}

	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("chat_id", "42")
	_ = w.WriteField("caption", "<b>report</b>")
	_ = w.WriteField("parse_mode", "HTML")
	fw, _ := w.CreateFormFile("document", "r.txt")
	_, _ = fw.Write([]byte("data"))
	w.Close()
	resp, err = http.Post(s.URL+"/bot"+s.Token+"/sendDocument", w.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	sent := s.Sent(42)
	if len(sent) != 1 || sent[0].Document == nil || sent[0].Caption != "report" || string(s.FileData(sent[0].Document.FileID)) != "data" {
		t.Fatalf("sendDocument: %d %+v", resp.StatusCode, sent)
	}
}

func TestEntitiesCountUTF16(t *testing.T) {
	got := Entities("😀 @hermes_bot /start@hermes_bot x@no")
	want := []Entity{{Type: "mention", Offset: 3, Length: 11}, {Type: "bot_command", Offset: 15, Length: 17}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Entities = %+v, want %+v", got, want)
	}
}

func TestCommandsActionsAnswers(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	if e := call(t, s, "setMyCommands", map[string]any{"commands": []Command{{Command: "New", Description: "x"}}}); e.ErrorCode != 400 {
		t.Errorf("upper-case command: %+v", e)
	}
	call(t, s, "setMyCommands", map[string]any{"commands": []Command{{Command: "new", Description: "Start over"}}})
	call(t, s, "sendChatAction", map[string]any{"chat_id": -100, "message_thread_id": 5, "action": "typing"})
	call(t, s, "answerCallbackQuery", map[string]any{"callback_query_id": "q", "text": "ok"})
	if e := call(t, s, "sendMessageDraft", map[string]any{"chat_id": -100, "draft_id": 1, "text": "x"}); e.Description != "Bad Request: TEXTDRAFT_PEER_INVALID" {
		t.Errorf("draft in a group: %+v", e)
	}
	if len(s.Commands()) != 1 || len(s.Actions()) != 1 || s.Actions()[0].ThreadID != 5 || len(s.Answers()) != 1 {
		t.Fatalf("commands %+v actions %+v answers %+v", s.Commands(), s.Actions(), s.Answers())
	}
}
