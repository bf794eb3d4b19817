package browser

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// descriptions holds the model-facing text of each tool, in <name>.md.
//
//go:embed *.md
var descriptions embed.FS

// startSlack is added to each tool's timeout for starting Chromium and
// opening the tab on a session's first call.
const startSlack = 20 * time.Second

// browserTool is one browser tool: its schema and the function that does
// the work on the session's tab. Every browser tool changes or depends on
// the tab's state, so none is parallel-safe or idempotent.
type browserTool struct {
	m       *Manager
	name    string
	params  string
	timeout time.Duration
	run     func(ctx context.Context, m *Manager, t *tab, raw json.RawMessage) (any, error)
	// maxOutput overrides the dispatcher's cap (the screenshot carries
	// its image inline).
	maxOutput int
}

// Spec describes the tool.
func (b *browserTool) Spec() tool.Spec {
	desc, err := descriptions.ReadFile(b.name + ".md")
	if err != nil {
		panic("browser: no description for " + b.name)
	}
	return tool.Spec{
		Name:        b.name,
		Description: strings.TrimSpace(string(desc)),
		Parameters:  json.RawMessage(b.params),
		Toolset:     "browser",
		Timeout:     b.timeout + startSlack,
		MaxOutput:   b.maxOutput,
	}
}

// Available reports a missing Chromium.
func (b *browserTool) Available() error { return b.m.Available() }

// Call runs the tool on the session's tab, one call per tab at a time.
func (b *browserTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	t, err := b.m.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer b.m.release()
	t.mu.Lock()
	defer t.mu.Unlock()
	return b.run(ctx, b.m, t, raw)
}

// Tools returns the browser tools, all sharing m's browser.
func (m *Manager) Tools() []tool.Tool {
	return []tool.Tool{
		&browserTool{m: m, name: "browser_navigate", timeout: NavigationTimeout + 2*ActionTimeout, run: navigate, params: `{
  "type": "object",
  "properties": {"url": {"type": "string", "description": "The http or https URL to open."}},
  "required": ["url"]
}`},
		&browserTool{m: m, name: "browser_snapshot", timeout: ActionTimeout, run: snapshot, params: `{
  "type": "object",
  "properties": {"full": {"type": "boolean", "description": "Include all page text in full; by default long text is shortened."}}
}`},
		&browserTool{m: m, name: "browser_click", timeout: 3 * ActionTimeout, run: click, params: `{
  "type": "object",
  "properties": {"ref": {"type": "string", "description": "The element's ref from the latest snapshot, such as @e3."}},
  "required": ["ref"]
}`},
		&browserTool{m: m, name: "browser_type", timeout: 3 * ActionTimeout, run: typeText, params: `{
  "type": "object",
  "properties": {
    "ref": {"type": "string", "description": "The input's ref from the latest snapshot, such as @e2."},
    "text": {"type": "string", "description": "The text to type; it replaces what the field holds."},
    "submit": {"type": "boolean", "description": "Press Enter afterwards, submitting the form."}
  },
  "required": ["ref", "text"]
}`},
		&browserTool{m: m, name: "browser_press", timeout: 3 * ActionTimeout, run: press, params: `{
  "type": "object",
  "properties": {"key": {"type": "string", "description": "A key name such as Enter, Tab, Escape, ArrowDown, PageDown, Backspace, or a combination such as Control+a."}},
  "required": ["key"]
}`},
		&browserTool{m: m, name: "browser_scroll", timeout: 3 * ActionTimeout, run: scroll, params: `{
  "type": "object",
  "properties": {
    "direction": {"type": "string", "enum": ["up", "down"], "description": "Which way to scroll."},
    "amount": {"type": "integer", "minimum": 1, "description": "Pixels to scroll; by default most of one screen."}
  },
  "required": ["direction"]
}`},
		&browserTool{m: m, name: "browser_back", timeout: NavigationTimeout + ActionTimeout, run: back, params: `{"type": "object", "properties": {}}`},
		&browserTool{m: m, name: "browser_console", timeout: ActionTimeout, run: console, params: `{
  "type": "object",
  "properties": {"clear": {"type": "boolean", "description": "Empty the buffer after reading (default true); false keeps the messages for the next call too."}}
}`},
		&browserTool{m: m, name: "browser_screenshot", timeout: NavigationTimeout, run: screenshot, maxOutput: maxScreenshotOutput, params: `{
  "type": "object",
  "properties": {"full_page": {"type": "boolean", "description": "Capture the whole page, not just the visible screen."}}
}`},
	}
}

// decode unmarshals the arguments into v, reporting a mismatch as invalid
// arguments with the schema in words.
func decode(raw json.RawMessage, v any, shape string) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with %s: %v", shape, err)
	}
	return nil
}

// refSelector normalises a ref as the model may write it ("@e3", "e3",
// "ref=e3", "[ref=@e3]") and returns the CSS selector of its element.
func refSelector(ref string) (string, string, error) {
	r := strings.Trim(strings.TrimSpace(ref), "[]")
	r = strings.TrimPrefix(r, "ref=")
	r = strings.TrimPrefix(r, "@")
	ok := len(r) > 1 && r[0] == 'e'
	for _, c := range r[min(1, len(r)):] {
		ok = ok && c >= '0' && c <= '9'
	}
	if !ok {
		return "", "", tool.Errorf(tool.CodeInvalidArguments, "ref %q is not an element ref; use one shown in a snapshot, such as @e3", ref)
	}
	return fmt.Sprintf(`[data-hermes-ref=%q]`, r), "@" + r, nil
}
