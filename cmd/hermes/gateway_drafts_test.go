package main

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Through the real binary: in a private chat a streamed reply is shown as
// a draft while it is written and then sent whole as one message, with no
// edits (which would spend the chat's flood budget); a group, where
// drafts do not work, gets the reply by edits as before.
func TestGatewayTelegramDrafts(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	long := strings.Repeat("The logs were rotated. ", 120)
	srv.Handle(func(llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: long, ChunkSize: 1} })
	gatewayServe(t, h, tg, srv, "")

	tg.UserMessage(telegramtest.Incoming{Text: "rotate the logs"})
	msg := waitText(t, tg, 42, "The logs were rotated.")
	if strings.TrimSpace(msg.Text) != strings.TrimSpace(long) {
		t.Errorf("the message is %d bytes, want the whole reply of %d", len(msg.Text), len(long))
	}
	var drafts []telegramtest.Draft
	for _, d := range tg.Drafts() {
		if d.ChatID == 42 {
			drafts = append(drafts, d)
		}
	}
	if len(drafts) == 0 {
		t.Fatal("no draft was shown while the reply was written")
	}
	for _, d := range drafts {
		if !strings.HasPrefix(long, d.Text) || d.DraftID != drafts[0].DraftID {
			t.Errorf("draft %q (id %d) is not a beginning of the reply under one id", d.Text, d.DraftID)
		}
	}
	if n := tg.CallCount("editMessageText"); n != 0 {
		t.Errorf("%d edits in a private chat that shows drafts", n)
	}
}
