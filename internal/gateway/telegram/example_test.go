package telegram_test

import (
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway/telegram"
)

// Markdown becomes Telegram HTML; text that looks like HTML stays text.
func ExampleRenderHTML() {
	fmt.Println(telegram.RenderHTML("**Done**: `a < b` & <script> *kept"))
	// Output: <b>Done</b>: <code>a &lt; b</code> &amp; &lt;script&gt; *kept
}
