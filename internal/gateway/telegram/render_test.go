package telegram_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/telegram"
)

func TestRenderHTML(t *testing.T) {
	for _, tc := range []struct{ md, html string }{
		{"plain", "plain"},
		{"**bold** and __bold__", "<b>bold</b> and <b>bold</b>"},
		{"*it* and _it_", "<i>it</i> and <i>it</i>"},
		{"~~gone~~", "<s>gone</s>"},
		{"`a < b && c`", "<code>a &lt; b &amp;&amp; c</code>"},
		{"``code with ` inside``", "<code>code with ` inside</code>"},
		{"```go\nif a < b {\n\treturn \"x\" & y\n}\n```", "<pre><code class=\"language-go\">if a &lt; b {\n\treturn &#34;x&#34; &amp; y\n}</code></pre>"},
		{"```\nno lang\n```", "<pre>no lang</pre>"},
		{"```\"><script>\nx\n```", "<pre>x</pre>"},
		{"```python\nunclosed <fence>", "<pre><code class=\"language-python\">unclosed &lt;fence&gt;</code></pre>"},
		{"[docs](https://example.com/?a=1&b=\"2\")", "[docs](https://example.com/?a=1&amp;b=&#34;2&#34;)"},
		{"[docs](https://example.com/?a=1&b=2)", "<a href=\"https://example.com/?a=1&amp;b=2\">docs</a>"},
		{"[click](javascript:alert(1))", "[click](javascript:alert(1))"},
		{"# Title\n## Sub *it*", "<b>Title</b>\n<b>Sub <i>it</i></b>"},
		{"- one\n  * two\n1. three", "• one\n  • two\n1. three"},
		{"> quoted **bold**\n> more\nafter", "<blockquote>quoted <b>bold</b>\nmore</blockquote>\nafter"},
		{"<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"fish & chips", "fish &amp; chips"},
		{"a * b * c", "a * b * c"},
		{"**unbalanced bold", "**unbalanced bold"},
		{"*unbalanced", "*unbalanced"},
		{"snake_case_name and _it_", "snake_case_name and <i>it</i>"},
		{"`unclosed code <b>", "`unclosed code &lt;b&gt;"},
		{"**bold `code <x>` bold**", "<b>bold <code>code &lt;x&gt;</code> bold</b>"},
		{"**a *b* c**", "<b>a <i>b</i> c</b>"},
		{"**a *b** c*", "<b>a *b</b> c*"},
		{`\*not italic\*`, "*not italic*"},
		{"---", "──────────"},
		{"2 > 1 & 1 < 2", "2 &gt; 1 &amp; 1 &lt; 2"},
	} {
		if got := telegram.RenderHTML(tc.md); got != tc.html {
			t.Errorf("RenderHTML(%q)\n got %q\nwant %q", tc.md, got, tc.html)
		}
	}
}

// Whatever the model writes, Telegram's parser takes the rendered text.
func TestRenderedHTMLIsAcceptedByTelegram(t *testing.T) {
	h := newHarness(t)
	hostile := []string{
		"<script>alert(1)</script>", "a & b &amp; &#x; &", "**unbalanced * _ ~~ ` [", "`code with <tags> & stuff`",
		"```\n</pre></code><b>\n```", "[x](https://e.com/<b>)", "[**bold link**](https://e.com)", "> <i>\n>> nested\n> `x`",
		"# <h1>\n- <li>", "__*~~all~~*__", "*a **b* c**", "```go\nunclosed", "\\<b\\>", "💥 **😀** _é_ <3",
		"[a [b](https://x.y)](https://y.z)", "line\r\nwith\r\ncr", "\x00 nul", "&lt; already escaped &gt;",
	}
	for i, md := range hostile {
		if _, err := h.tg.Send(ctxT(t), gateway.Chat{ID: "42", Type: gateway.DM}, gateway.Outgoing{Text: md}); err != nil {
			t.Errorf("%q rendered as %q: %v", md, telegram.RenderHTML(md), err)
			continue
		}
		sent := h.srv.Sent(42)
		if got := sent[len(sent)-1]; got.Raw != telegram.RenderHTML(md) || got.ParseMode != "HTML" || (strings.Contains(md, "<script>") && !strings.Contains(got.Text, "<script>")) {
			t.Errorf("case %d: sent %+v", i, got)
		}
	}
}
