package writeguard

import (
	"os"
	"path/filepath"
	"strings"
)

// hermesRule is why nothing under $HERMES_HOME is written by the file
// tools: it is hermes's own state (its database, configuration, secrets,
// memory, skills, declared tools, persona, deliveries, profiles), read
// back with trust, and each part changes only through the tool made for
// it, which checks what is written (the memory tool scans for injected
// instructions) or through the user.
const hermesRule = "it is hermes's own state ($HERMES_HOME), which the file tools never change"

// hermesHint says, by the first part of a path under $HERMES_HOME, what
// to do instead of writing it. The default covers the rest: state.db and
// its -wal and -shm, deliveries, profiles, caches.
func hermesHint(first string) string {
	switch first {
	case "memories":
		return "Save what should be remembered with the memory tool (add, replace or remove an entry of MEMORY.md or USER.md)"
	case "skills":
		return "Create or change skills with the skill_manage tool (create, patch, edit, write_file for a skill's own files)"
	case "cron":
		return "Create, change or remove scheduled jobs with the cronjob tool"
	case "config.yaml":
		return "Tell the user which setting to change; they can run hermes config set KEY VALUE or edit the file themselves"
	case ".env":
		return "hermes already has the secrets it needs; if one is missing or wrong, tell the user which variable to set and let them edit the file themselves"
	case "tools":
		return "Declared tools are the user's to write: show the user the YAML and let them save it under $HERMES_HOME/tools themselves (or run hermes tools import-openapi)"
	case "SOUL.md":
		return "The persona is the user's to write: tell the user what to change and let them edit the file themselves"
	}
	return "hermes changes these files itself; use the tool made for the change (memory, skill_manage, cronjob), or tell the user what to change and let them do it"
}

// hermesRoots are the directories of hermes's own files: HermesHome and
// Home/.hermes, each as given and resolved.
func (g Guard) hermesRoots() []string {
	var roots []string
	roots = append(roots, variants(g.HermesHome)...)
	if g.Home != "" {
		roots = append(roots, variants(filepath.Join(g.Home, ".hermes"))...)
	}
	return roots
}

// hermesDeny refuses p when it is a hermes root or lies under one.
func (g Guard) hermesDeny(p string) *DeniedError {
	for _, root := range g.hermesRoots() {
		if !covers(root, true, p) {
			continue
		}
		first := ""
		if rel, err := filepath.Rel(root, p); err == nil && rel != "." {
			first, _, _ = strings.Cut(filepath.ToSlash(rel), "/")
		}
		return hermesDenial(first)
	}
	return nil
}

// hermesDenial is the refusal of a path whose first part under
// $HERMES_HOME is first ("" when unknown).
func hermesDenial(first string) *DeniedError {
	return &DeniedError{Rule: hermesRule, Hint: hermesHint(first)}
}

// inHermesHome reports whether p, or its deepest existing ancestor, is
// inside a hermes root by identity (device and inode) rather than by
// name, which catches a spelling the filesystem maps to the same
// directory: another case or Unicode normalization on macOS, a bind
// mount.
func (g Guard) inHermesHome(p string) bool {
	var roots []os.FileInfo
	for _, r := range g.hermesRoots() {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			roots = append(roots, fi)
		}
	}
	if len(roots) == 0 {
		return false
	}
	for cur := p; ; {
		if fi, err := os.Stat(cur); err == nil {
			for _, r := range roots {
				if os.SameFile(fi, r) {
					return true
				}
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return false
		}
		cur = parent
	}
}
