package email

import "testing"

// What the sender wrote now is kept; the quoted thread under it, in the
// forms mail programs write it, is not.
func TestStripQuotes(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"gmail", "/approve\n\nOn Thu, Dec 3, 2026 at 10:00 AM hermes <hermes@example.com> wrote:\n> ⚠️ hermes wants to run\n> rm -rf build\n", "/approve"},
		{"wrapped attribution", "Yes please.\n\nOn Thu, Dec 3, 2026 at 10:00 AM hermes\n<hermes@example.com> wrote:\n\n> old\n", "Yes please."},
		{"interleaved", "> Which branch?\nmain\n> And the tag?\nv2\n", "main\nv2"},
		{"outlook", "Sounds good.\n\n________________________________\nFrom: hermes <hermes@example.com>\nSent: Thursday\nSubject: Re: plan\n\nold text\n", "Sounds good."},
		{"original message", "ok\n-----Original Message-----\nFrom: x\nold\n", "ok"},
		{"signature", "Deploy it.\n-- \nAna\nCEO\n", "Deploy it."},
		{"french", "D'accord.\n\nLe jeu. 3 déc. 2026 à 10:00, hermes <hermes@example.com> a écrit :\n> vieux\n", "D'accord."},
		{"german", "Ja.\n\nAm 03.12.2026 um 10:00 schrieb hermes <hermes@example.com>:\n> alt\n", "Ja."},
		{"chinese", "好的。\n\n在 2026年12月3日 10:00，hermes <hermes@example.com> 写道：\n> 旧的\n", "好的。"},
		{"crlf", "hi\r\n> quoted\r\n", "hi"},
		{"nothing quoted", "Line one.\nOn second thought, line two.\n", "Line one.\nOn second thought, line two."},
	} {
		if got := stripQuotes(tt.in); got != tt.want {
			t.Errorf("%s: stripQuotes = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// An HTML-only mail is read as text, without its quoted history.
func TestHTMLText(t *testing.T) {
	got := stripQuotes(htmlText(`<div>Ship <b>it</b> &amp; tag v2</div><div class="gmail_quote">On Thu, x wrote:<blockquote>/deny</blockquote></div>`))
	if got != "Ship **it** & tag v2" {
		t.Errorf("htmlText = %q", got)
	}
}
