package telegram

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Command is a slash command shown in Telegram's command menu.
type Command struct {
	// Name is the command without '/': 1 to 32 of a-z, 0-9 and _
	// (upper case is lowered).
	Name string
	// Description is shown beside it, 1 to 256 characters (longer ones
	// are cut).
	Description string
}

// SetCommands replaces the bot's command menu (setMyCommands). A name
// Telegram would refuse fails the whole call before it is made, naming
// every bad one, since Telegram would refuse the whole list.
func (a *Adapter) SetCommands(ctx context.Context, cmds []Command) error {
	if len(cmds) > 100 {
		return fmt.Errorf("telegram: %d commands; Telegram takes at most 100", len(cmds))
	}
	out := make([]map[string]string, 0, len(cmds))
	var bad []string
	for _, c := range cmds {
		name := strings.ToLower(strings.TrimPrefix(c.Name, "/"))
		desc := strings.TrimSpace(c.Description)
		if utf8.RuneCountInString(desc) > 256 {
			desc = string([]rune(desc)[:255]) + "…"
		}
		switch {
		case !isCommand(name):
			bad = append(bad, fmt.Sprintf("name %q (want 1 to 32 of a-z, 0-9 and _)", c.Name))
		case desc == "":
			bad = append(bad, fmt.Sprintf("command %q has an empty description (want 1 to 256 characters)", c.Name))
		}
		out = append(out, map[string]string{"command": name, "description": desc})
	}
	if len(bad) > 0 {
		return fmt.Errorf("telegram: setMyCommands: %s", strings.Join(bad, "; "))
	}
	return a.call(ctx, "setMyCommands", map[string]any{"commands": out}, nil)
}
