package slack

import (
	"strings"
	"testing"
)

func TestRenderMrkdwn(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		{"plain", "plain"},
		{"**bold** and *it* and _it_ and ~~gone~~", "*bold* and _it_ and _it_ and ~gone~"},
		{"a `x < y && z` b", "a `x &lt; y &amp;&amp; z` b"},
		{"# Title", "*Title*"},
		{"- one\n- two", "• one\n• two"},
		{"> quoted <b>", "> quoted &lt;b&gt;"},
		{"```go\nif a < b {}\n```", "```\nif a &lt; b {}\n```"},
		{"see [the docs](https://example.com/a?b=1&c=2)", "see <https://example.com/a?b=1&amp;c=2|the docs>"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"an odd * star", "an odd * star"},
		{"**unclosed", "**unclosed"},
	} {
		if got := RenderMrkdwn(c.md); got != c.want {
			t.Errorf("RenderMrkdwn(%q) = %q, want %q", c.md, got, c.want)
		}
	}
}

// Whatever the model writes, the rendered text holds no "<" that Slack
// would read as a command (a ping of a channel, a user, a group, or a
// link whose label hides its address), except the links the renderer
// writes itself for Markdown links to http, https and mailto.
func TestRenderMrkdwnCannotPingOrForgeLinks(t *testing.T) {
	for _, md := range []string{
		"<!channel> wake up", "<!here>", "<!everyone>", "hi <@U024BE7LH>", "<#C024BE7LH>",
		"<!subteam^SAZ94GDB8>", "<!date^1392734382^{date}|Feb 18>",
		"<https://evil.example|https://bank.example>", "<mailto:x@evil.example|support>",
		"**<!channel>**", "`<!channel>`", "```\n<!channel>\n```", "> <!channel>", "- <!here>", "# <!channel>",
		"[<!channel>](https://example.com)", "[ok](https://evil.example|https://bank.example)",
		"[ok](https://evil.example>x)", "[ok](javascript:alert(1))", "[ok](slack://channel?id=C1)",
		"&lt;!channel&gt;", "\\<!channel>", "<<!channel>>",
	} {
		got := RenderMrkdwn(md)
		rest := got
		for {
			i := strings.IndexByte(rest, '<')
			if i < 0 {
				break
			}
			end := strings.IndexByte(rest[i:], '>')
			if end < 0 {
				t.Errorf("RenderMrkdwn(%q) = %q: a '<' is left open", md, got)
				break
			}
			cmd := rest[i+1 : i+end]
			if !(strings.HasPrefix(cmd, "https://example.com") && strings.Count(cmd, "|") == 1) {
				t.Errorf("RenderMrkdwn(%q) = %q: the command <%s> reaches Slack", md, got, cmd)
			}
			rest = rest[i+end+1:]
		}
	}
}

func TestMeasureCountsRenderedBytes(t *testing.T) {
	if got := Measure("a & b"); got != len("a &amp; b") {
		t.Errorf("Measure(a & b) = %d, want %d", got, len("a &amp; b"))
	}
	if got := Measure("é"); got != 2 {
		t.Errorf("Measure(é) = %d, want 2 bytes", got)
	}
}
