package matrix_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/matrix"
	"github.com/hermes-go/hermes/internal/gateway/matrix/matrixtest"
)

// Against a real dendrite: a history written before hermes first synced
// is not answered; an invite from an allowed user is joined, one from a
// stranger is left pending; a message in a two-member room is a DM; the
// reply is an m.in_reply_to of it and the edit an m.replace.
func TestDendriteInviteMessageReplyEdit(t *testing.T) {
	hs := matrixtest.Start(t)
	bot := hs.Register(t, "hermes")
	alice := hs.Register(t, "alice")
	mallory := hs.Register(t, "mallory")
	old := alice.CreateRoom(false, bot.UserID)
	alice.Say(old, "old history, not to answer")
	group := alice.CreateRoom(false, mallory.UserID)
	mallory.Join(group)
	alice.Say(group, "a group's past, hermes, not to answer")

	a, err := matrix.New(matrix.Options{Homeserver: hs.URL, UserID: bot.UserID, Password: bot.Password, PollTimeout: time.Second,
		MayInvite: func(_ context.Context, u string) bool { return u == alice.UserID }})
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, a)
	strange := mallory.CreateRoom(false, bot.UserID)
	room := alice.CreateRoom(false, bot.UserID)
	waitMember(t, alice, room, bot.UserID)
	id := alice.Say(room, "hello hermes")
	ev := got.wait(t, "hello hermes")
	if ev.Chat.ID != room || ev.Chat.Type != gateway.DM || !ev.Addressed || ev.User.ID != alice.UserID || ev.ID != id || ev.MessageID != id {
		t.Errorf("event = %+v; want a DM from %s in %s with id %s", ev, alice.UserID, room, id)
	}
	ref, err := a.Send(context.Background(), ev.Chat, gateway.Outgoing{Text: "Hi **Alice**", ReplyTo: ev.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(context.Background(), ref, gateway.Outgoing{Text: "Hi **Alice**, again"}); err != nil {
		t.Fatal(err)
	}
	msgs := alice.WaitFor(room, bot.UserID, 10*time.Second, "reply and edit", func(evs []matrixtest.Event) bool { return len(evs) >= 2 })
	if _, _, to := msgs[0].Relation(); to != id || msgs[0].Body() != "Hi **Alice**" {
		t.Errorf("reply = %q in reply to %q; want it in reply to %s", msgs[0].Body(), to, id)
	}
	if rel, target, _ := msgs[1].Relation(); rel != "m.replace" || target != ref.ID {
		t.Errorf("edit relation = %s %s; want m.replace of %s", rel, target, ref.ID)
	}
	if nc, _ := msgs[1].Content["m.new_content"].(map[string]any); nc["body"] != "Hi **Alice**, again" {
		t.Errorf("edit's m.new_content = %v", nc)
	}
	alice.Invite(group, bot.UserID)
	waitMember(t, alice, group, bot.UserID)
	alice.Say(group, "no mention here")
	alice.Say(group, "and now @hermes:localhost, a question")
	gev := got.wait(t, "a question")
	if gev.Chat.Type != gateway.Group || !gev.Addressed {
		t.Errorf("a mention in a three-member room = %+v; want an addressed group message", gev)
	}
	if ev := got.wait(t, "no mention"); ev.Addressed {
		t.Errorf("a group message without a mention is addressed: %+v", ev)
	}
	// A reply to a message the bot sent before this process started
	// (another adapter's) is addressed too.
	earlier, err := matrix.New(matrix.Options{Homeserver: hs.URL, AccessToken: bot.Token})
	if err != nil {
		t.Fatal(err)
	}
	said, err := earlier.Send(context.Background(), gev.Chat, gateway.Outgoing{Text: "Which one?"})
	if err != nil {
		t.Fatal(err)
	}
	alice.SendContent(group, "m.room.message", map[string]any{"msgtype": "m.text", "body": "the blue one",
		"m.relates_to": map[string]any{"m.in_reply_to": map[string]string{"event_id": said.ID}}})
	if ev := got.wait(t, "the blue one"); !ev.Addressed {
		t.Errorf("a reply to the bot's earlier message is not addressed: %+v", ev)
	}
	if slices.Contains(mallory.Members(strange), bot.UserID) {
		t.Error("the bot joined a stranger's room")
	}
	for _, ev := range got.all() {
		if strings.Contains(ev.Text, "old history") || strings.Contains(ev.Text, "past") {
			t.Errorf("the backlog before the first sync was delivered: %+v", ev)
		}
	}
}

// A saved position the homeserver refuses (another account's, or one it
// forgot) is dropped for a fresh start from now, instead of failing every
// sync; and the status check of a password login leaves no device behind.
func TestDendriteStalePositionAndCheck(t *testing.T) {
	hs := matrixtest.Start(t)
	bot := hs.Register(t, "hermes")
	alice := hs.Register(t, "alice")
	cur := &fixedCursor{since: `{"since":"not-a-token-of-this-server"}`}
	a, err := matrix.New(botOptions(hs, bot, alice, cur))
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, a)
	room := alice.CreateRoom(false, bot.UserID)
	waitMember(t, alice, room, bot.UserID)
	alice.Say(room, "after the reset")
	got.wait(t, "after the reset")

	before := len(bot.Devices())
	p, err := matrix.New(matrix.Options{Homeserver: hs.URL, UserID: bot.UserID, Password: bot.Password})
	if err != nil {
		t.Fatal(err)
	}
	who, err := p.Check(context.Background())
	if err != nil || !strings.Contains(who, bot.UserID) {
		t.Errorf("Check = %q, %v; want it to name %s", who, err, bot.UserID)
	}
	if after := len(bot.Devices()); after != before {
		t.Errorf("%d devices after the check, %d before; the check's login was not logged out", after, before)
	}
}

// A room that had more messages while hermes was away than one sync
// returns (a limited timeline) has the gap read back: every message is
// delivered, once, in order.
func TestDendriteGapIsReadBack(t *testing.T) {
	hs := matrixtest.Start(t)
	bot := hs.Register(t, "hermes")
	alice := hs.Register(t, "alice")
	cur := &fixedCursor{}
	opts := botOptions(hs, bot, alice, cur)
	a, err := matrix.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := &received{ch: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- a.Receive(ctx, first.deliver) }()
	room := alice.CreateRoom(false, bot.UserID)
	waitMember(t, alice, room, bot.UserID)
	alice.Say(room, "before the gap")
	first.wait(t, "before the gap")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	const n = 130 // more than the sync filter's timeline limit of 100
	for i := 0; i < n; i++ {
		alice.Say(room, fmt.Sprintf("gap message %03d", i))
	}
	b, err := matrix.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, b)
	got.wait(t, fmt.Sprintf("gap message %03d", n-1))
	var texts []string
	for _, ev := range got.all() {
		// The first adapter may have stopped before it saved the
		// position past this one; it is offered again, which the
		// gateway's dedupe answers once.
		if ev.Text != "before the gap" {
			texts = append(texts, ev.Text)
		}
	}
	if len(texts) != n {
		t.Fatalf("%d messages delivered; want %d: %q", len(texts), n, texts)
	}
	for i, s := range texts {
		if want := fmt.Sprintf("gap message %03d", i); s != want {
			t.Fatalf("message %d is %q; want %q", i, s, want)
		}
	}
}

// Files go both ways through the media repository: a reply's file is
// uploaded and sent as m.image (a picture) or m.file, and a picture a
// user sends arrives as the event's Media, downloadable, with its caption
// as the text.
func TestDendriteFiles(t *testing.T) {
	hs := matrixtest.Start(t)
	bot := hs.Register(t, "hermes")
	alice := hs.Register(t, "alice")
	a, err := matrix.New(botOptions(hs, bot, alice, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, a)
	room := alice.CreateRoom(false, bot.UserID)
	waitMember(t, alice, room, bot.UserID)

	dir := t.TempDir()
	png := filepath.Join(dir, "chart.png")
	pngData := []byte("\x89PNG\r\n\x1a\nnot really a png")
	if err := os.WriteFile(png, pngData, 0o600); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, []byte("some notes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), gateway.Chat{ID: room, Type: gateway.DM}, gateway.Outgoing{Text: "here", Files: []string{png, txt}}); err != nil {
		t.Fatal(err)
	}
	evs := alice.WaitFor(room, bot.UserID, 10*time.Second, "text and two files", func(evs []matrixtest.Event) bool { return len(evs) >= 3 })
	if evs[1].Content["msgtype"] != "m.image" || evs[1].Body() != "chart.png" || evs[2].Content["msgtype"] != "m.file" || evs[2].Body() != "notes.txt" {
		t.Errorf("files sent as %v and %v", evs[1].Content, evs[2].Content)
	}
	if body := alice.Download(evs[2].Content["url"].(string)); string(body) != "some notes" {
		t.Errorf("the uploaded file reads %q", body)
	}

	uri := alice.Upload("photo.jpg", "image/jpeg", []byte("jpeg bytes"))
	alice.SendContent(room, "m.room.message", map[string]any{"msgtype": "m.image", "body": "what is this?", "filename": "photo.jpg",
		"url": uri, "info": map[string]any{"mimetype": "image/jpeg", "size": 10}})
	ev := got.wait(t, "what is this?")
	if len(ev.Media) != 1 || ev.Media[0].Kind != "photo" || ev.Media[0].Name != "photo.jpg" || ev.Media[0].MIME != "image/jpeg" {
		t.Fatalf("media = %+v", ev.Media)
	}
	rc, err := ev.Media[0].Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "jpeg bytes" {
		t.Errorf("the picture downloads as %q", b)
	}
}
