package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// Through the real binary: hermes serve stops while one message's turn
// runs and another waits behind it (busy: queue). Telegram was told both
// arrived, so only hermes knows of them; the next serve answers the
// waiting one and tells the chat the running one was cut off, without
// running it again.
func TestGatewayTelegramKeepsMessagesAcrossRestart(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	slow := make(chan struct{}, 1)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		// The cut-off message stays in the session, unanswered, so the
		// next turn's user text holds both: look at the newest line.
		text := r.LastUserText()
		text = text[strings.LastIndex(text, "\n")+1:]
		if strings.HasSuffix(text, "slow job") {
			slow <- struct{}{}
			return llmtest.Reply{Text: "never seen", Delay: time.Hour} // until serve hangs up
		}
		return llmtest.Reply{Text: "answer: " + text}
	})
	stop := gatewayServe(t, h, tg, srv, "  busy: queue\n")
	tg.UserMessage(telegramtest.Incoming{Text: "start the slow job"})
	select {
	case <-slow:
	case <-time.After(20 * time.Second):
		t.Fatal("the first message never reached the model")
	}
	_, id := tg.UserMessage(telegramtest.Incoming{Text: "then the quick one"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := tg.WaitConfirmed(ctx, id); err != nil {
		t.Fatalf("the second update was not confirmed: %v", err)
	}
	stop()
	before := len(srv.Requests())

	gatewayServe(t, h, tg, srv, "  busy: queue\n")
	waitText(t, tg, 42, `answering your message "start the slow job"`)
	waitText(t, tg, 42, "answer: then the quick one")
	for _, r := range srv.Requests()[before:] {
		if strings.HasSuffix(r.LastUserText(), "slow job") {
			t.Errorf("the cut-off turn ran again after the restart")
		}
	}
}

// /model switches the chat's model: the next turn calls it, /model says
// so, and /model default goes back. A name that is not one is refused.
func TestGatewayTelegramModelSwitch(t *testing.T) {
	h := newHome(t)
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "model was " + r.Model} })
	gatewayServe(t, h, tg, srv, "")
	tg.UserMessage(telegramtest.Incoming{Text: "/model other-model"})
	waitText(t, tg, 42, "This chat now talks to other-model")
	tg.UserMessage(telegramtest.Incoming{Text: "which one?"})
	waitText(t, tg, 42, "model was other-model")
	tg.UserMessage(telegramtest.Incoming{Text: "/model"})
	waitText(t, tg, 42, "This chat talks to other-model (chosen with /model)")
	tg.UserMessage(telegramtest.Incoming{Text: "/model ../../etc/passwd?x=1"})
	waitText(t, tg, 42, "is not a model name")
	tg.UserMessage(telegramtest.Incoming{Text: "/model default"})
	waitText(t, tg, 42, "the configured model again, test-model")
	tg.UserMessage(telegramtest.Incoming{Text: "and now?"})
	waitText(t, tg, 42, "model was test-model")
}
