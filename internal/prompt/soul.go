package prompt

import (
	"fmt"
	"path/filepath"
	"strings"
)

// soulFile is the persona file in $HERMES_HOME, named as Hermes names it.
const soulFile = "SOUL.md"

// identity is the first part of the prompt: SOUL.md when the user wrote
// one, else Options.Identity, else the built-in Identity. A SOUL.md that
// tries to inject instructions is withheld like any context file: the
// fallback identity stays, followed by the blocked line, so hermes still
// knows who it is and the user can see why their persona is missing.
func identity(o Options) string {
	fallback := strings.TrimSpace(o.Identity)
	if fallback == "" {
		fallback = Identity
	}
	if o.HermesHome == "" {
		return fallback
	}
	path := filepath.Join(o.HermesHome, soulFile)
	text, err := readInstructions(path)
	if err != nil {
		if !isMissing(err) {
			o.Logger.Warn("SOUL.md skipped; using the built-in identity", "file", path, "error", err)
		}
		return fallback
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return fallback
	}
	text, blocked := scanned(fileText{name: soulFile, text: text}, o.Scan, o.Logger)
	if blocked {
		return fallback + "\n\n" + text
	}
	return capText(text, soulFile, o.FileCap, fmt.Sprintf("SOUL.md is cut at %d characters", o.FileCap))
}
