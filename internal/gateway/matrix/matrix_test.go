package matrix

import (
	"strings"
	"testing"
)

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Measure counts the bytes text takes as a JSON string: UTF-8 bytes,
// two for each escaped quote, backslash and newline, six for other
// control characters, the line and paragraph separators and an invalid
// byte; and never less than what hermes sends.
func TestMeasureCountsJSONBytes(t *testing.T) {
	cases := map[string]int{
		"":             0,
		"abc":          3,
		"é":            2,
		"日本":           6,
		"😀":            4,
		`a"b\c`:        7,
		"a\nb\tc":      7,
		"\x01":         6,
		"<b>&amp;</b>": 12,
		"a\u2028b":     8,
		"\xff":         6,
	}
	for in, want := range cases {
		if got := Measure(in); got != want {
			t.Errorf("Measure(%q) = %d; want %d", in, got, want)
		}
	}
	for _, in := range []string{"x\u2029y<\x01\xfe\"é😀", strings.Repeat("\u2028", 100)} {
		b, _ := marshal(in)
		if Measure(in) < len(b)-2 {
			t.Errorf("Measure(%q) = %d, less than the %d bytes sent", in, Measure(in), len(b)-2)
		}
	}
	if MaxText*2+1024 > MaxEvent {
		t.Errorf("an edit of MaxText (%d) does not fit an event of %d bytes", MaxText, MaxEvent)
	}
}

// New refuses settings that cannot work, naming the value and what is
// accepted, and never the secret.
func TestNewRefusesBadOptions(t *testing.T) {
	cases := []struct {
		o    Options
		want string
	}{
		{Options{Homeserver: "matrix.example.org", AccessToken: "tok"}, `homeserver "matrix.example.org" is not an http or https URL`},
		{Options{Homeserver: "https://m.example.org"}, "neither access_token nor password"},
		{Options{Homeserver: "https://m.example.org", Password: "sekrit-pass"}, `user_id "" is not a Matrix user id`},
		{Options{Homeserver: "https://m.example.org", Password: "sekrit-pass", UserID: "hermes"}, `user_id "hermes" is not a Matrix user id`},
	}
	for _, c := range cases {
		_, err := New(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "sekrit") {
			t.Errorf("New(%+v) = %v; want %q", c.o, err, c.want)
		}
	}
}

// A group message is addressed by an m.mentions of the bot, its id, its
// display name or its localpart as a word, a reply to the bot's message,
// or a command; not by a name inside another word.
func TestAddressed(t *testing.T) {
	a := &Adapter{userID: "@hermes:example.org", name: "Herm Bot", ours: map[string]bool{"$mine": true}}
	yes := []string{"hi hermes!", "@hermes:example.org what", "HERMES, help", "ask herm bot", "/approve"}
	no := []string{"hermeses are gods", "hi all", "thermes", "approve /x"}
	for _, s := range yes {
		if !a.addressed(messageContent{}, s) {
			t.Errorf("%q is not addressed", s)
		}
	}
	for _, s := range no {
		if a.addressed(messageContent{}, s) {
			t.Errorf("%q is addressed", s)
		}
	}
	var c messageContent
	c.Mentions = &struct {
		UserIDs []string `json:"user_ids"`
	}{UserIDs: []string{"@hermes:example.org"}}
	if !a.addressed(c, "hey you") {
		t.Error("an m.mentions of the bot is not addressed")
	}
}

// A reply's quoted fallback is removed; a message that only starts with
// ">" is kept whole.
func TestStripReplyFallback(t *testing.T) {
	cases := map[string]string{
		"> <@a:x> quoted\n> more\n\nanswer": "answer",
		"> just a quote\n\ntext":            "> just a quote\n\ntext",
		"plain":                             "plain",
	}
	for in, want := range cases {
		if got := stripReplyFallback(in); got != want {
			t.Errorf("stripReplyFallback(%q) = %q; want %q", in, got, want)
		}
	}
}
