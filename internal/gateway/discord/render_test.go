package discord_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/discord"
)

// Every form of ping is defused outside code and left alone inside it;
// the rest of the Markdown is Discord's already and passes unchanged.
func TestRenderDefusesPings(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello **world**", "hello **world**"},
		{"@everyone", "@\u200beveryone"},
		{"ping @here now", "ping @\u200bhere now"},
		{"a@everyone.b", "a@\u200beveryone.b"},
		{"<@123>", "<@\u200b123>"},
		{"<@!123>", "<@\u200b!123>"},
		{"<@&456>", "<@\u200b&456>"},
		{"<#789> and <@abc> and user@example.com", "<#789> and <@abc> and user@example.com"},
		{"`@everyone` and @everyone", "`@everyone` and @\u200beveryone"},
		{"``a ` @here``", "``a ` @here``"},
		{"`unclosed @here", "`unclosed @\u200bhere"},
		{"```\n@everyone <@1>\n```\n@here", "```\n@everyone <@1>\n```\n@\u200bhere"},
		{"~~~go\n@here\n~~~", "~~~go\n@here\n~~~"},
		{"```\nnever closed @here", "```\nnever closed @here"},
	} {
		if got := discord.Render(c.in); got != c.want {
			t.Errorf("Render(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Len counts what the content will be once rendered (or more), and never
// falls as text grows, as the splitter needs.
func TestLenBoundsRenderedLength(t *testing.T) {
	texts := []string{
		"plain text, é and 😀",
		"@everyone @here <@1> <@!22> <@&333> `@here` ```\n@everyone\n```",
		strings.Repeat("@everyone ", 50) + strings.Repeat("<@12345>", 50),
	}
	for _, s := range texts {
		if got, rendered := discord.Len(s), utf8.RuneCountInString(discord.Render(s)); got < rendered {
			t.Errorf("Len(%q) = %d < %d code points rendered", s, got, rendered)
		}
		prev := 0
		for i := range s {
			if n := discord.Len(s[:i]); n < prev {
				t.Errorf("Len falls from %d to %d at %q", prev, n, s[:i])
			} else {
				prev = n
			}
		}
	}
	if n := discord.Len("😀"); n != 1 {
		t.Errorf("Len(emoji) = %d, want 1: Discord counts code points", n)
	}
}

// A reply long enough to need several messages, full of pings, splits
// into parts that each fit 2000 code points once rendered.
func TestSplitPartsFitOnceRendered(t *testing.T) {
	text := strings.Repeat("@everyone said <@123456789012345678> 😀 ", 300)
	caps := (&discord.Adapter{}).Caps()
	parts := gateway.Split(text, caps.MaxText, caps.Measure)
	if len(parts) < 3 {
		t.Fatalf("%d parts", len(parts))
	}
	for i, p := range parts {
		if n := utf8.RuneCountInString(discord.Render(p)); n > discord.MaxText {
			t.Errorf("part %d renders to %d code points", i, n)
		}
	}
}

// A token that cannot be a bot token is refused without being shown;
// URLs of the wrong kind are refused with what is accepted.
func TestNewChecksOptions(t *testing.T) {
	const secret = "abc.defghijklmnop"
	for _, c := range []struct {
		o    discord.Options
		want string
	}{
		{discord.Options{}, "token is empty"},
		{discord.Options{Token: "Bot a.b.c"}, `starts with "Bot "`},
		{discord.Options{Token: secret}, "three dot-separated parts"},
		{discord.Options{Token: "a.b.c", BaseURL: "ftp://x"}, "base_url"},
		{discord.Options{Token: "a.b.c", GatewayURL: "https://gateway.discord.gg"}, "ws or wss"},
	} {
		_, err := discord.New(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "defghijklmnop") {
			t.Errorf("New(%+v): %v, want %q", c.o, err, c.want)
		}
	}
}

// Whatever the text, Len bounds the rendered content, rendering twice
// changes nothing more (a defused mention stays defused), and no
// @everyone or @here survives outside code when the text has no code.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"@everyone", "<@!12>", "`@here`", "```\n@here\n```", "a<@&1>b@here", "``x`` @everyone `"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := discord.Render(s)
		if n := utf8.RuneCountInString(r); discord.Len(s) < n {
			t.Fatalf("Len(%q) = %d < %d", s, discord.Len(s), n)
		}
		if rr := discord.Render(r); rr != r {
			t.Fatalf("Render is not stable on %q: %q then %q", s, r, rr)
		}
		if !strings.ContainsAny(s, "`~") && (strings.Contains(r, "@everyone") || strings.Contains(r, "@here")) {
			t.Fatalf("Render(%q) = %q keeps a live mention", s, r)
		}
	})
}
