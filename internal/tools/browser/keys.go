package browser

import (
	"strings"
	"unicode/utf8"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

// namedKeys maps lower-cased DOM key names ("enter", "arrowdown") to the
// runes chromedp's keyboard encodes them from. It is built on first use.
var namedKeys = lazy.Value[map[string]rune]{New: func() map[string]rune {
	m := map[string]rune{}
	for r, k := range kb.Keys {
		if utf8.RuneCountInString(k.Key) > 1 {
			m[strings.ToLower(k.Key)] = r
		}
	}
	// Names models often use for the same keys.
	for alias, name := range map[string]string{"return": "enter", "esc": "escape", "space": " ", "del": "delete",
		"up": "arrowup", "down": "arrowdown", "left": "arrowleft", "right": "arrowright"} {
		if r, ok := m[name]; ok {
			m[alias] = r
		} else if utf8.RuneCountInString(name) == 1 {
			m[alias], _ = utf8.DecodeRuneInString(name)
		}
	}
	return m
}}

// modifierName returns the modifier a prefix of a key combination names,
// given in lower case.
func modifierName(name string) (chromedp.Modifier, bool) {
	switch name {
	case "control", "ctrl":
		return chromedp.ModifierCtrl, true
	case "shift":
		return chromedp.ModifierShift, true
	case "alt", "option":
		return chromedp.ModifierAlt, true
	case "meta", "cmd", "command":
		return chromedp.ModifierMeta, true
	}
	return 0, false
}

// parseKey reads "Enter", "a", or a combination such as "Control+a" or
// "Shift+Tab".
func parseKey(s string) (rune, []chromedp.Modifier, error) {
	s = strings.TrimSpace(s)
	parts := []string{s}
	if len(s) > 1 {
		parts = strings.Split(s, "+")
		if strings.HasSuffix(s, "++") || s == "+" {
			parts = append(strings.Split(strings.TrimSuffix(s, "++"), "+"), "+")
		}
	}
	var mods []chromedp.Modifier
	for _, p := range parts[:len(parts)-1] {
		mod, ok := modifierName(strings.ToLower(strings.TrimSpace(p)))
		if !ok {
			return 0, nil, tool.Errorf(tool.CodeInvalidArguments, "unknown modifier %q in %q; use Control, Shift, Alt or Meta", p, s)
		}
		mods = append(mods, mod)
	}
	name := parts[len(parts)-1]
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		return r, mods, nil
	}
	if r, ok := namedKeys.Get()[strings.ToLower(strings.TrimSpace(name))]; ok {
		return r, mods, nil
	}
	return 0, nil, tool.Errorf(tool.CodeInvalidArguments, "unknown key %q; use a key name such as Enter, Tab, Escape, Backspace, ArrowDown, PageDown, Home, or a single character", name)
}
