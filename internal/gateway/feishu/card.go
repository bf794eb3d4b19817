package feishu

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/gateway"
)

// Replies are interactive cards with one markdown element: a card renders
// the Markdown the model writes, can be edited as often as a reply
// streams (text messages allow 20 edits), and carries the approval
// buttons. update_multi makes an edit show to everyone in the chat.

// Render makes text safe for a card's markdown element. The element reads
// a few HTML-like tags (<at id=all></at> mentions everyone, <font>,
// <link>), and a reply may quote what anyone wrote; so every < and & is
// written as an entity, which the element shows as the character, and
// no text the model writes can become a tag.
func Render(text string) string {
	if !strings.ContainsAny(text, "<&") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	for _, r := range text {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Measure counts text in bytes as a card carries it: rendered, and
// escaped as a JSON string, which is how Feishu's 30 KB limit on a card
// counts it. It counts a text no less than any of its prefixes, as
// gateway.Split needs.
func Measure(text string) int {
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == '<':
			n += len("&lt;")
		case r == '&':
			n += len("&amp;")
		case r == '"' || r == '\\':
			n += 2
		case r == '\n' || r == '\r' || r == '\t' || r == '\b' || r == '\f':
			n += 2
		case r < 0x20 || r == '\u2028' || r == '\u2029' || (r == utf8.RuneError && size == 1):
			n += 6 // \u00XX, \u2028, or \ufffd for a byte that is not UTF-8
		default:
			n += size
		}
	}
	return n
}

// cardButton is a button's value: the data a press sends back.
type cardButton struct {
	Data string `json:"d"`
}

// card returns the content of an interactive card showing text, with
// rows of buttons under it.
func card(text string, rows [][]gateway.Button) (string, error) {
	elements := []any{map[string]any{"tag": "markdown", "content": Render(text)}}
	for _, row := range rows {
		actions := make([]any, 0, len(row))
		for i, btn := range row {
			if n := len(btn.Data); n < 1 || n > MaxButtonData {
				return "", &gateway.SendError{Kind: gateway.Permanent,
					Message: fmt.Sprintf("feishu: button %q has %d bytes of data; hermes sends 1 to %d bytes (keep a short id in the button and the state elsewhere)", btn.Text, n, MaxButtonData)}
			}
			if btn.Text == "" {
				return "", &gateway.SendError{Kind: gateway.Permanent, Message: fmt.Sprintf("feishu: a button with data %q has no text; every button needs a label", btn.Data)}
			}
			kind := "default"
			if i == 0 {
				kind = "primary"
			}
			actions = append(actions, map[string]any{
				"tag":   "button",
				"text":  map[string]string{"tag": "plain_text", "content": btn.Text},
				"type":  kind,
				"value": cardButton{Data: btn.Data},
			})
		}
		elements = append(elements, map[string]any{"tag": "action", "actions": actions})
	}
	c := map[string]any{
		"config":   map[string]bool{"wide_screen_mode": true, "update_multi": true},
		"elements": elements,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as Measure counts: > stays one byte
	if err := enc.Encode(c); err != nil {
		return "", err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(b) > MaxCard {
		return "", &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("feishu: the card is %d bytes, over Feishu's %d; cut the text with gateway.Split and Caps.MaxText", len(b), MaxCard)}
	}
	return string(b), nil
}
