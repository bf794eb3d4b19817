package memory

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/tool"
)

// The actions of the memory tool.
const (
	ActionAdd     = "add"
	ActionReplace = "replace"
	ActionRemove  = "remove"
)

// Op is one edit: add Content to Target, replace the entry OldText
// identifies with Content, or remove that entry.
type Op struct {
	Action  string `json:"action"`
	Target  Target `json:"target"`
	Content string `json:"content,omitempty"`
	OldText string `json:"old_text,omitempty"`
}

// Result reports an applied edit: what happened and the new usage of
// every target the edit named.
type Result struct {
	Message string           `json:"message"`
	Usage   map[Target]Usage `json:"usage"`
	// Written is false when nothing changed on disk (an add of an entry
	// that was already there).
	Written bool `json:"written"`
}

// Apply performs ops all-or-nothing: every op is checked against the state
// the ops before it would leave, the limits are checked on the final
// state, and only then is each changed file written, once. Failures are
// *tool.Error values whose messages tell the model how to fix the call;
// an op's failure names its index when there are several.
func (s *Store) Apply(ops []Op) (Result, error) {
	if len(ops) == 0 {
		return Result{}, tool.Errorf(tool.CodeInvalidArguments, "no operation given; pass action and target (with content and/or old_text), or a non-empty operations list")
	}
	// A file that is off is refused before anything is created: with no
	// home there is not even a directory to create.
	for i, op := range ops {
		if (op.Target == TargetMemory || op.Target == TargetUser) && s.Off(op.Target) {
			label := ""
			if len(ops) > 1 {
				label = fmt.Sprintf("operations[%d]: ", i)
			}
			return Result{}, tool.Errorf(tool.CodeInvalidArguments, "%s%s is turned off in this configuration (%s: false); nothing is saved there", label, op.Target, offKey(op.Target))
		}
	}
	var res Result
	written, err := s.update(func(st state) error {
		before := map[Target]Usage{}
		var notes []string
		for i, op := range ops {
			label := ""
			if len(ops) > 1 {
				label = fmt.Sprintf("operations[%d]: ", i)
			}
			if op.Target != TargetMemory && op.Target != TargetUser {
				return tool.Errorf(tool.CodeInvalidArguments, "%starget %q is not accepted; use \"memory\" (your notes) or \"user\" (the user profile)", label, op.Target)
			}
			if _, seen := before[op.Target]; !seen {
				before[op.Target] = usageOf(st[op.Target], s.Limit(op.Target))
			}
			note, err := applyOne(st, op, label)
			if err != nil {
				return err
			}
			notes = append(notes, note)
		}
		res.Usage = map[Target]Usage{}
		for _, t := range []Target{TargetMemory, TargetUser} {
			was, touched := before[t]
			if !touched {
				continue
			}
			// A file already over its limit (written with a larger one)
			// may still shrink; only growth past the limit is refused.
			now := usageOf(st[t], s.Limit(t))
			if now.Chars > now.Limit && now.Chars > was.Chars {
				return overLimit(t, was, now)
			}
			res.Usage[t] = now
		}
		res.Message = strings.Join(notes, " ")
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res.Written = written
	return res, nil
}

// overLimit is the error for a write that would pass target's limit. It
// never cuts entries: it shows the usage and asks for consolidation.
func overLimit(t Target, was, now Usage) error {
	e := tool.Errorf(tool.CodeInvalidArguments,
		"%s is at %s; this write would bring it to %s/%s chars, over the limit. Nothing was written. Consolidate first: replace several related entries with one shorter entry, or remove entries that no longer matter, then try again (one call with operations can do both)",
		t, was.String(), tool.GroupDigits(now.Chars), tool.GroupDigits(now.Limit))
	e.Data = map[string]any{"target": t, "usage": was, "would_be_chars": now.Chars}
	return e
}

// applyOne applies op to st, returning a sentence for the result.
func applyOne(st state, op Op, label string) (string, error) {
	entries := st[op.Target]
	switch op.Action {
	case ActionAdd:
		content, err := checkContent(op.Content, label)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			if e == content {
				return fmt.Sprintf("That entry is already in %s; nothing written.", op.Target), nil
			}
		}
		st[op.Target] = append(entries, content)
		return fmt.Sprintf("Added to %s.", op.Target), nil
	case ActionReplace:
		content, err := checkContent(op.Content, label)
		if err != nil {
			return "", err
		}
		old, err := match(entries, op.Target, op.OldText, label)
		if err != nil {
			return "", err
		}
		st[op.Target] = replaceEntry(entries, old, content)
		return fmt.Sprintf("Replaced an entry in %s.", op.Target), nil
	case ActionRemove:
		old, err := match(entries, op.Target, op.OldText, label)
		if err != nil {
			return "", err
		}
		st[op.Target] = replaceEntry(entries, old, "")
		return fmt.Sprintf("Removed an entry from %s.", op.Target), nil
	}
	return "", tool.Errorf(tool.CodeInvalidArguments, "%saction %q is not accepted; use add, replace or remove", label, op.Action)
}

// checkContent trims content and refuses empty text, text that would break
// the file format and text that looks like prompt injection: every entry
// lands in every future system prompt.
func checkContent(content, label string) (string, error) {
	c := strings.TrimSpace(unixLines(content))
	if c == "" {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%scontent is empty; give the text of the entry (one fact, preference or lesson)", label)
	}
	if len(parse(c)) != 1 || parse(c)[0] != c {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%scontent contains a line holding only \"§\", which separates entries; write one entry per operation", label)
	}
	if reason, found := redact.ScanInjection(c); found {
		return "", tool.Errorf(tool.CodeDenied, "%scontent refused: %s. Memory entries go into every future system prompt, so they may not carry instructions that override hermes's rules, hidden characters, or commands that send secrets", label, reason)
	}
	return c, nil
}

// replaceEntry returns entries with every copy of old replaced by content,
// once, at the first copy's place; an empty content removes old, and a
// content already present elsewhere is not added twice.
func replaceEntry(entries []string, old, content string) []string {
	out := make([]string, 0, len(entries))
	placed := content == ""
	for _, e := range entries {
		if e == content && content != old {
			continue // the replacement merges into an existing entry below
		}
		if e != old {
			out = append(out, e)
			continue
		}
		if !placed {
			out = append(out, content)
			placed = true
		}
	}
	if !placed {
		out = append(out, content)
	}
	return out
}

// offKey is the setting that turns target off.
func offKey(t Target) string {
	if t == TargetUser {
		return "memory.user_profile_enabled"
	}
	return "memory.memory_enabled"
}
