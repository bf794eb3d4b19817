package telegram_test

import (
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
)

// A group message is for the bot only when it says so: the cases privacy
// mode lets through, and the ones a bot with privacy off also sees.
func TestAddressedInGroupsAndTopics(t *testing.T) {
	h := newHarness(t)
	evs := h.events(t)
	bot := h.srv.Bot
	bob := telegramtest.User{ID: 7, FirstName: "Bob", Username: "bob"}
	const group, forum = -100, -300

	// Messages to reply to: one of Bob's, one of the bot's, and the first
	// message of a forum topic the bot opened, with a bot message inside.
	bobMsg, _ := h.srv.UserMessage(telegramtest.Incoming{Chat: group, From: bob, Text: "hi all"})
	next(t, evs)
	botRef, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "-100", Type: gateway.Group}, gateway.Outgoing{Text: "I am here"})
	if err != nil {
		t.Fatal(err)
	}
	topicRoot, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "-300", Type: gateway.Group}, gateway.Outgoing{Text: "Topic: builds"})
	if err != nil {
		t.Fatal(err)
	}
	rootID := atoi(t, topicRoot.ID)
	inTopic, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "-300", Type: gateway.Group, Thread: topicRoot.ID}, gateway.Outgoing{Text: "build done"})
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name      string
		in        telegramtest.Incoming
		addressed bool
		thread    string
	}{
		{name: "direct message", in: telegramtest.Incoming{Text: "hello"}, addressed: true},
		{name: "plain group message", in: telegramtest.Incoming{Chat: group, Text: "hello everyone"}},
		{name: "mention", in: telegramtest.Incoming{Chat: group, Text: "@hermes_bot what time is it"}, addressed: true},
		{name: "mention in another case", in: telegramtest.Incoming{Chat: group, Text: "hey @HERMES_Bot"}, addressed: true},
		{name: "mention after astral characters", in: telegramtest.Incoming{Chat: group, Text: "😀😀 @hermes_bot"}, addressed: true},
		{name: "mention of a longer name", in: telegramtest.Incoming{Chat: group, Text: "@hermes_bot_fan hi"}},
		{name: "mention of another bot", in: telegramtest.Incoming{Chat: group, Text: "@other_bot hi"}},
		{name: "name without an entity", in: telegramtest.Incoming{Chat: group, Text: "write to hermes_bot@example.com"}},
		{name: "name in text whose entity says otherwise", in: telegramtest.Incoming{Chat: group, Text: "@hermes_bot", Entities: []telegramtest.Entity{}}},
		{name: "text_mention of the bot", in: telegramtest.Incoming{Chat: group, Text: "Hermes, look",
			Entities: []telegramtest.Entity{{Type: "text_mention", Offset: 0, Length: 6, User: &bot}}}, addressed: true},
		{name: "text_mention of someone else", in: telegramtest.Incoming{Chat: group, Text: "Bob, look",
			Entities: []telegramtest.Entity{{Type: "text_mention", Offset: 0, Length: 3, User: &bob}}}},
		{name: "reply to the bot", in: telegramtest.Incoming{Chat: group, Text: "and then?", ReplyTo: atoi(t, botRef.ID)}, addressed: true},
		{name: "reply to someone else", in: telegramtest.Incoming{Chat: group, Text: "agreed", ReplyTo: bobMsg.MessageID}},
		{name: "command to the bot", in: telegramtest.Incoming{Chat: group, Text: "/new@hermes_bot"}, addressed: true},
		{name: "command to another bot", in: telegramtest.Incoming{Chat: group, Text: "/new@other_bot"}},
		{name: "command to no bot", in: telegramtest.Incoming{Chat: group, Text: "/new"}},
		{name: "caption mention", in: telegramtest.Incoming{Chat: group, Caption: "@hermes_bot what is this", Photo: []byte("img")}, addressed: true},
		{name: "basic group mention", in: telegramtest.Incoming{Chat: -5, Group: true, Text: "@hermes_bot hi"}, addressed: true},
		{name: "forum topic mention", in: telegramtest.Incoming{Chat: forum, Forum: true, Thread: rootID, Topic: true, Text: "@hermes_bot status?"},
			addressed: true, thread: topicRoot.ID},
		{name: "forum topic message under the bot's first message", in: telegramtest.Incoming{Chat: forum, Forum: true, Thread: rootID, Topic: true,
			Text: "anyone?", ReplyTo: rootID}, thread: topicRoot.ID},
		{name: "forum topic reply to the bot", in: telegramtest.Incoming{Chat: forum, Forum: true, Thread: rootID, Topic: true,
			Text: "why?", ReplyTo: atoi(t, inTopic.ID)}, addressed: true, thread: topicRoot.ID},
		{name: "General topic reply carries a thread id but is in no topic", in: telegramtest.Incoming{Chat: forum, Forum: true, Thread: atoi(t, inTopic.ID),
			Text: "ok", ReplyTo: atoi(t, inTopic.ID)}, addressed: true},
	} {
		h.srv.UserMessage(tc.in)
		ev := next(t, evs)
		if ev.Addressed != tc.addressed || ev.Chat.Thread != tc.thread {
			t.Errorf("%s: addressed %v thread %q, want %v %q (event %+v)", tc.name, ev.Addressed, ev.Chat.Thread, tc.addressed, tc.thread, ev)
		}
		if wantType := map[bool]gateway.ChatType{true: gateway.Group, false: gateway.DM}[tc.in.Chat < 0]; ev.Chat.Type != wantType {
			t.Errorf("%s: chat type %v", tc.name, ev.Chat.Type)
		}
	}
}
