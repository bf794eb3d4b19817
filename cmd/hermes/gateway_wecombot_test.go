package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// wecomBotServe starts hermes serve with a WeCom AI bot on bot's long
// connection and the model at srv; alice may talk and approve.
func wecomBotServe(t *testing.T, h *home, bot *wecomtest.Bot, srv *llmtest.Server) {
	t.Helper()
	h.write(".env", "WECOM_BOT_SECRET="+bot.Secret+"\n")
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  wecom:
    bot: {bot_id: %s, secret: "${WECOM_BOT_SECRET}", ws_url: %q}
    allow: [alice]
`, srv.URL(), bot.BotID, bot.URL))
	serveWeCom(t, h, func() {
		if v := bot.Violations(); len(v) > 0 {
			t.Errorf("the bot server saw what WeCom refuses: %q", v)
		}
	}, bot.Secret)
	botWait(t, bot, "the subscription", func() bool { return bot.Connected() })
}

func botWait(t *testing.T, bot *wecomtest.Bot, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := bot.Wait(ctx, cond); err != nil {
		t.Fatalf("waiting for %s: %v; streams to alice: %+v", what, err, bot.Streams("alice"))
	}
}

// botSay pushes alice's message and returns its msgid.
func botSay(t *testing.T, bot *wecomtest.Bot, text string) string {
	t.Helper()
	id, err := bot.Message(context.Background(), wecomtest.BotIncoming{From: "alice", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// botReplied waits until a stream to alice holds want.
func botReplied(t *testing.T, bot *wecomtest.Bot, want string) {
	t.Helper()
	botWait(t, bot, fmt.Sprintf("a reply holding %q", want), func() bool {
		for _, s := range bot.Streams("alice") {
			if strings.Contains(s.Content, want) {
				return true
			}
		}
		return false
	})
}

// Through the real binary on the AI bot's long connection: a message is
// answered as a stream; its redelivery is answered once; after the
// connection drops, hermes reconnects and answers again; an answer of
// 45009 is waited out; the streams are finished; and in a group only a
// message that mentions the bot is answered.
func TestGatewayWeComBotAnswers(t *testing.T) {
	h := newHome(t)
	bot := wecomtest.NewBot(wecomtest.BotOptions{})
	t.Cleanup(bot.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "答: " + r.LastUserText()} })
	wecomBotServe(t, h, bot, srv)

	id := botSay(t, bot, "你好")
	botReplied(t, bot, "答: 你好")
	if err := bot.Redeliver(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	bot.Drop()
	botWait(t, bot, "a new subscription", func() bool { return bot.Subscribes() == 2 && bot.Connected() })
	bot.FailNext(45009)
	botSay(t, bot, "after the drop")
	botReplied(t, bot, "答: after the drop")
	botWait(t, bot, "the streams to finish", func() bool {
		s := bot.Streams("alice")
		return len(s) == 2 && s[0].Finished && s[1].Finished
	})
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2 (the redelivery answered once)", n)
	}

	// In a group, only a message that @-mentions the bot is answered.
	for _, text := range []string{"talking among ourselves", "@hermes 你也来看看"} {
		if _, err := bot.Message(context.Background(), wecomtest.BotIncoming{From: "alice", Group: "wrkgrp", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	botWait(t, bot, "the group's answer", func() bool {
		s := bot.Streams("wrkgrp")
		return len(s) == 1 && strings.Contains(s[0].Content, "答: @hermes 你也来看看")
	})
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUserText(), "among ourselves") {
			t.Error("a group message without a mention reached the model")
		}
	}
}

// A reply over 20480 bytes arrives whole in streams that each fit; a
// dangerous command is asked in the chat and /deny refuses it.
func TestGatewayWeComBotLongReplyAndDeny(t *testing.T) {
	h := newHome(t)
	bot := wecomtest.NewBot(wecomtest.BotOptions{})
	t.Cleanup(bot.Close)
	srv := llmtest.New(t)
	var long strings.Builder
	for i := range 60 {
		fmt.Fprintf(&long, "第%d段：这是一段很长的中文文字，用来测试按字节分割的回复是否完整到达。", i)
		long.WriteString(strings.Repeat("字", 100) + "\n\n")
	}
	marker := filepath.Join(h.dir, "ran")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{Text: long.String()},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "Not deleted."})
	wecomBotServe(t, h, bot, srv)

	botSay(t, bot, "write a lot")
	botReplied(t, bot, "第59段")
	var got strings.Builder
	for _, s := range bot.Streams("alice") {
		if len(s.Content) > wecomtest.MaxStream {
			t.Errorf("a stream of %d bytes", len(s.Content))
		}
		got.WriteString(s.Content)
	}
	if n := len(bot.Streams("alice")); n < 2 || strings.Join(strings.Fields(got.String()), "") != strings.Join(strings.Fields(long.String()), "") {
		t.Errorf("the reply of %d bytes arrived in %d streams as %d bytes", long.Len(), n, got.Len())
	}

	botSay(t, bot, "clean up")
	botReplied(t, bot, "/approve")
	botSay(t, bot, "/deny")
	botReplied(t, bot, "Not deleted.")
	if _, err := os.Stat(marker); err == nil {
		t.Error("the denied command ran")
	}
}
