package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hermes-go/hermes/internal/tool"
)

// navigate opens a URL after the guard admitted it, and returns the page
// with a snapshot so the model sees it without another call.
func navigate(ctx context.Context, m *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		URL string `json:"url"`
	}
	if err := decode(raw, &a, "url, an http or https URL"); err != nil {
		return nil, err
	}
	u, err := checkNavigation(ctx, m.guard, a.URL)
	if err != nil {
		return nil, err
	}
	t.lastBlocked()
	resp, err := run(ctx, t, "opening "+u, NavigationTimeout, chromedp.NavigateResponse(u))
	if err != nil {
		return nil, err
	}
	p, err := state(ctx, t, false, snapshotLimit)
	if err != nil {
		return nil, err
	}
	if resp != nil {
		p.Status = resp.Status
	}
	return p, nil
}

// snapshot returns the current page's text view.
func snapshot(ctx context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		Full bool `json:"full"`
	}
	if err := decode(raw, &a, "an optional boolean full"); err != nil {
		return nil, err
	}
	return state(ctx, t, a.Full, snapshotLimit)
}

// findJS looks an element up by its selector and says whether it is
// there and visible, scrolling it into view when it is.
const findJS = `((sel) => {
  const el = document.querySelector(sel);
  if (!el) return "missing";
  el.scrollIntoView({block: "center", inline: "center"});
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? "visible" : "hidden";
})(%q)`

// find resolves a ref to its selector, failing with not_found when the page
// has no such element (refs belong to one page and vanish when it changes).
func find(ctx context.Context, t *tab, ref string) (sel, name string, visible bool, err error) {
	sel, name, err = refSelector(ref)
	if err != nil {
		return "", "", false, err
	}
	where, err := run(ctx, t, "finding "+name, ActionTimeout, chromedp.Evaluate[string](fmt.Sprintf(findJS, sel)))
	if err != nil {
		return "", "", false, err
	}
	if where == "missing" {
		return "", "", false, tool.Errorf(tool.CodeNotFound, "no element %s on the current page; refs belong to one version of a page, so take a new browser_snapshot and use a ref from it", name)
	}
	return sel, name, where == "visible", nil
}

// after lets the page react to an action, then returns its new state with
// a short snapshot.
func after(ctx context.Context, t *tab) (any, error) {
	settle(ctx, t)
	return state(ctx, t, false, actionSnapshotLimit)
}

// click clicks the element with the mouse, as a user would; an element
// without a box on screen (a styled-away input) gets a script click.
func click(ctx context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		Ref string `json:"ref"`
	}
	if err := decode(raw, &a, "ref, an element ref such as @e3"); err != nil {
		return nil, err
	}
	sel, name, visible, err := find(ctx, t, a.Ref)
	if err != nil {
		return nil, err
	}
	if visible {
		_, err = run(ctx, t, "clicking "+name, ActionTimeout, chromedp.Click(chromedp.CSS(sel)))
	} else {
		_, err = run(ctx, t, "clicking "+name, ActionTimeout, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel)))
	}
	if err != nil {
		return nil, err
	}
	return after(ctx, t)
}

// clearJS focuses a field and empties it, telling the page's scripts
// through an input event, so the typed text replaces the old value.
const clearJS = `((sel) => {
  const el = document.querySelector(sel);
  el.focus();
  if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
    el.value = "";
    el.dispatchEvent(new Event("input", {bubbles: true}));
  } else if (el.isContentEditable) {
    el.textContent = "";
  }
})(%q)`

// typeText replaces a field's content by typing, key by key, so the page
// sees the same events as from a keyboard.
func typeText(ctx context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		Ref    string `json:"ref"`
		Text   string `json:"text"`
		Submit bool   `json:"submit"`
	}
	if err := decode(raw, &a, "ref, text and an optional boolean submit"); err != nil {
		return nil, err
	}
	sel, name, _, err := find(ctx, t, a.Ref)
	if err != nil {
		return nil, err
	}
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(clearJS, sel)),
		chromedp.KeyEvent(a.Text),
	}
	if a.Submit {
		steps = append(steps, chromedp.KeyEvent(kb.Enter))
	}
	if _, err := run(ctx, t, "typing into "+name, ActionTimeout, chromedp.Steps(steps...)); err != nil {
		return nil, err
	}
	return after(ctx, t)
}

// press sends one key, optionally with modifiers, to the focused element.
func press(ctx context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		Key string `json:"key"`
	}
	if err := decode(raw, &a, "key, a key name such as Enter"); err != nil {
		return nil, err
	}
	key, mods, err := parseKey(a.Key)
	if err != nil {
		return nil, err
	}
	var opts []chromedp.KeyOption
	if len(mods) > 0 {
		opts = append(opts, chromedp.KeyModifiers(mods...))
	}
	if _, err := run(ctx, t, "pressing "+a.Key, ActionTimeout, chromedp.KeyEvent(string(key), opts...)); err != nil {
		return nil, err
	}
	return after(ctx, t)
}

// ScrollResult is a page after scrolling, with where the view now is.
type ScrollResult struct {
	Page
	ScrollY        int  `json:"scroll_y"`
	ScrollHeight   int  `json:"scroll_height"`
	ViewportHeight int  `json:"viewport_height"`
	AtEnd          bool `json:"at_end"`
}

// scroll scrolls the window by most of a screen, or by amount pixels.
func scroll(ctx context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		Direction string `json:"direction"`
		Amount    int    `json:"amount"`
	}
	if err := decode(raw, &a, "direction (up or down) and an optional amount in pixels"); err != nil {
		return nil, err
	}
	sign := 1
	switch strings.ToLower(strings.TrimSpace(a.Direction)) {
	case "down":
	case "up":
		sign = -1
	default:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "direction must be up or down, not %q", a.Direction)
	}
	expr := fmt.Sprintf(`(() => {
  const by = %d > 0 ? %d : Math.round(window.innerHeight * 0.85);
  window.scrollBy(0, %d * by);
  const se = document.scrollingElement || document.documentElement;
  return [Math.round(window.scrollY), se.scrollHeight, window.innerHeight];
})()`, a.Amount, a.Amount, sign)
	pos, err := run(ctx, t, "scrolling", ActionTimeout, chromedp.Evaluate[[]int](expr))
	if err != nil {
		return nil, err
	}
	v, err := after(ctx, t)
	if err != nil {
		return nil, err
	}
	r := ScrollResult{Page: v.(Page)}
	if len(pos) == 3 {
		r.ScrollY, r.ScrollHeight, r.ViewportHeight = pos[0], pos[1], pos[2]
		r.AtEnd = (sign > 0 && pos[0]+pos[2] >= pos[1]) || (sign < 0 && pos[0] == 0)
	}
	return r, nil
}

// back goes one page back in the tab's history.
func back(ctx context.Context, _ *Manager, t *tab, _ json.RawMessage) (any, error) {
	h, err := run(ctx, t, "reading the history", ActionTimeout, chromedp.NavigationEntries())
	if err != nil {
		return nil, err
	}
	if h.CurrentIndex <= 0 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "there is no earlier page in this tab's history")
	}
	if prev := h.Entries[h.CurrentIndex-1].URL; !strings.HasPrefix(prev, "about:") {
		if _, err := checkNavigation(ctx, t.guard, prev); err != nil {
			return nil, err
		}
	}
	if _, err := run(ctx, t, "going back", NavigationTimeout, chromedp.NavigateBack()); err != nil {
		return nil, err
	}
	return state(ctx, t, false, snapshotLimit)
}

// ConsoleResult is what browser_console returns.
type ConsoleResult struct {
	Messages []ConsoleMessage `json:"messages"`
	// Dropped counts older messages discarded for want of room.
	Dropped int `json:"dropped,omitempty"`
}

// console returns the console messages and uncaught errors collected since
// the buffer was last cleared.
func console(_ context.Context, _ *Manager, t *tab, raw json.RawMessage) (any, error) {
	a := struct {
		Clear *bool `json:"clear"`
	}{}
	if err := decode(raw, &a, "an optional boolean clear"); err != nil {
		return nil, err
	}
	msgs, dropped := t.takeConsole(a.Clear == nil || *a.Clear)
	if msgs == nil {
		msgs = []ConsoleMessage{}
	}
	return ConsoleResult{Messages: msgs, Dropped: dropped}, nil
}
