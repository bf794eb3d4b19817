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

	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// discordServe starts hermes serve with Discord pointed at dc (REST root
// as base_url, the Gateway found through GET /gateway/bot) and the model
// at srv, allowing Alice (42), and stops it when the test ends.
func discordServe(t *testing.T, h *home, dc *discordtest.Server, srv *llmtest.Server) {
	t.Helper()
	h.write("config.yaml", fmt.Sprintf(`model: {base_url: "%s/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
gateway:
  discord:
    token: "%s"
    base_url: "%s"
    allow: ["42"]
`, srv.URL(), dc.Token, dc.URL))
	_, logs := startServe(t, h, dc.Token)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := dc.WaitLive(ctx); err != nil {
		t.Fatalf("hermes serve did not connect to the Gateway: %v\n%s", err, logs.String())
	}
}

// discordWait waits until cond holds on the Discord server, showing what
// the bot sent to channel when it does not.
func discordWait(t *testing.T, dc *discordtest.Server, channel, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := dc.Wait(ctx, cond); err != nil {
		var got []string
		for _, m := range dc.Sent(channel) {
			got = append(got, m.Content)
		}
		t.Fatalf("%s: %v; the bot sent %q", what, err, got)
	}
}

// discordText waits until a bot message in channel holds want, and
// returns it.
func discordText(t *testing.T, dc *discordtest.Server, channel, want string) discordtest.Message {
	t.Helper()
	return waitSent(t, dc.Wait, func() []discordtest.Message { return dc.Sent(channel) },
		func(m discordtest.Message) string { return m.Content }, channel, want)
}

// Through the real binary: a DM is answered with a message that pings no
// one whatever the model wrote; in a guild only a mention is answered; an
// event Discord delivers twice is answered once; and a dropped Gateway
// connection is resumed, with the message sent meanwhile answered.
func TestGatewayDiscordAnswersResumesAndDedupes(t *testing.T) {
	h := newHome(t)
	dc := discordtest.New(discordtest.Options{})
	t.Cleanup(dc.Close) // after serve has stopped: cleanups run last first
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "Hello **Alice**, telling @everyone and <@&555>."},
		llmtest.Reply{Text: "Answer in the guild."},
		llmtest.Reply{Text: "Second answer."},
		llmtest.Reply{Text: "Back after the drop."})
	discordServe(t, h, dc, srv)
	dm := discordtest.DMChannel(discordtest.Alice())

	dc.UserMessage(discordtest.Incoming{Content: "hi hermes"})
	got := discordText(t, dc, dm, "Hello **Alice**")
	if strings.Contains(got.Content, "@everyone") || strings.Contains(got.Content, "<@&555>") {
		t.Errorf("the reply can ping: %q", got.Content)
	}
	if got.AllowedMentions == nil || got.AllowedMentions.Parse == nil || len(got.AllowedMentions.Parse) != 0 {
		t.Errorf("allowed_mentions %+v, want parse: []", got.AllowedMentions)
	}

	const ch, guild = "700", "800"
	dc.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "talking among ourselves"})
	dc.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "<@" + dc.Bot.ID + "> what do you say?"})
	discordText(t, dc, ch, "Answer in the guild.")

	// Delivered twice: answered once. The next message's answer shows
	// that the redelivery was seen and dropped, not still on its way.
	second := dc.UserMessage(discordtest.Incoming{Content: "second"})
	discordText(t, dc, dm, "Second answer.")
	if err := dc.Redeliver(dm, second.ID); err != nil {
		t.Fatal(err)
	}

	dc.Drop()
	dc.UserMessage(discordtest.Incoming{Content: "are you there?"})
	discordText(t, dc, dm, "Back after the drop.")
	if rs := dc.Resumes(); len(rs) == 0 || rs[0].Path != "/resume" {
		t.Errorf("resumes %+v: the dropped connection was not resumed at resume_gateway_url", rs)
	}
	if n := dc.Identifies(); n != 1 {
		t.Errorf("%d identifies, want 1", n)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d model calls, want 4: the unaddressed guild message and the redelivered one must not reach the model", n)
	}
	answers := 0
	for _, m := range dc.Sent(dm) {
		answers += strings.Count(m.Content, "Second answer.")
	}
	if answers != 1 {
		t.Errorf("the message delivered twice was answered %d times", answers)
	}
}

// A dangerous command asks the channel with buttons: a press by someone
// not allowed is acknowledged within the interaction and refused, the
// owner's "Allow once" runs the command, and the request is edited to
// say so, its buttons gone.
func TestGatewayDiscordApprovalButtons(t *testing.T) {
	h := newHome(t)
	dc := discordtest.New(discordtest.Options{})
	t.Cleanup(dc.Close)
	srv := llmtest.New(t)
	marker := filepath.Join(h.dir, "approved")
	args, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Join(h.dir, "nothing") + " && touch " + marker})
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(args)}}}, llmtest.Reply{Text: "Cleaned up."})
	discordServe(t, h, dc, srv)

	const ch, guild = "700", "800"
	dc.UserMessage(discordtest.Incoming{Channel: ch, Guild: guild, Content: "<@" + dc.Bot.ID + "> clean up"})
	ask := discordText(t, dc, ch, "needs your approval")
	var allow string
	for _, row := range ask.Components {
		for _, b := range row.Components {
			if b.Label == "Allow once" {
				allow = b.CustomID
			}
		}
	}
	if allow == "" || len(allow) > discordtest.MaxCustomID {
		t.Fatalf("the request has no usable Allow once button: %+v", ask.Components)
	}
	mallory := discordtest.User{ID: "99", Username: "mallory"}
	pressed := dc.Press(ch, ask.ID, mallory, allow)
	discordWait(t, dc, ch, "the stranger's press answered", func() bool {
		for _, f := range dc.Followups() {
			if f.InteractionID == pressed && strings.Contains(f.Content, "not allowed") && f.Flags == 64 {
				return true
			}
		}
		return false
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the stranger's press ran the command")
	}
	dc.Press(ch, ask.ID, discordtest.Alice(), allow)
	discordText(t, dc, ch, "Allowed (once) by")
	discordText(t, dc, ch, "Cleaned up.")
	if _, err := os.Stat(marker); err != nil {
		t.Error("the allowed command did not run")
	}
	for _, m := range dc.Sent(ch) {
		if m.ID == ask.ID && len(m.Components) != 0 {
			t.Errorf("the answered request still has buttons: %+v", m.Components)
		}
	}
	for _, cb := range dc.Callbacks() {
		if cb.Type != 6 {
			t.Errorf("an interaction was answered with type %d, want 6 (deferred update)", cb.Type)
		}
	}
	if n := len(dc.Callbacks()); n != 2 {
		t.Errorf("%d interactions answered, want both", n)
	}
}

// A reply longer than 2000 code points arrives whole, in parts that each
// fit once rendered, through a rate-limited channel and a 429: nothing
// is lost and no request goes into a bucket known to be empty.
func TestGatewayDiscordLongReplyUnderRateLimit(t *testing.T) {
	h := newHome(t)
	dc := discordtest.New(discordtest.Options{})
	t.Cleanup(dc.Close)
	srv := llmtest.New(t)
	var para []string
	for i := range 60 {
		para = append(para, fmt.Sprintf("Paragraph %02d: @everyone reads 😀 %s.", i, strings.Repeat("word ", 12)))
	}
	long := strings.Join(para, "\n\n")
	srv.Enqueue(llmtest.Reply{Text: long})
	discordServe(t, h, dc, srv)
	dm := discordtest.DMChannel(discordtest.Alice())
	dc.RateLimit(dm, 2, 2*time.Second)
	dc.Fail429(dm, 0.5)

	dc.UserMessage(discordtest.Incoming{Content: "write a lot"})
	discordWait(t, dc, dm, "the whole reply", func() bool {
		var all strings.Builder
		for _, m := range dc.Sent(dm) {
			all.WriteString(m.Content + "\n")
		}
		return strings.Contains(all.String(), "Paragraph 59") && strings.Count(all.String(), "Paragraph ") == 60
	})
	sent := dc.Sent(dm)
	if len(sent) < 2 {
		t.Fatalf("%d messages, want the reply split", len(sent))
	}
	var words []string
	for _, m := range sent {
		words = append(words, strings.Fields(strings.ReplaceAll(m.Content, "@\u200beveryone", "@everyone"))...)
	}
	if got, want := strings.Join(words, " "), strings.Join(strings.Fields(long), " "); got != want {
		t.Errorf("the parts do not make the reply:\n got %.200q…\nwant %.200q…", got, want)
	}
	limited, early := dc.Limited(dm)
	// The forced 429 was met and honoured; a busy machine can meet one
	// more at a bucket's edge, which is honoured the same way. What must
	// never happen is a request into a bucket known to be empty.
	if limited < 1 || early != 0 {
		t.Errorf("%d 429s (want at least the 1 forced) and %d requests into an empty bucket (want 0)", limited, early)
	}
}
