package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/subdir"
	"github.com/hermes-go/hermes/internal/tool"
)

// MergePlan is a proposal to replace several skills by one: the model's
// answer to the curator, to be checked like any skill the agent writes.
type MergePlan struct {
	// Sources are the skills merged; each must be in the skills
	// directory.
	Sources []string `json:"sources"`
	// Name and Category are the merged skill's; an empty Category keeps
	// the first source's folder.
	Name     string `json:"name"`
	Category string `json:"category,omitempty"`
	// Content is the merged SKILL.md, front matter and body.
	Content string `json:"content"`
}

// CheckMerge checks a merge as skill_manage checks a new skill — the
// name's rules, the front matter, the size limit, the injection scan —
// and that it merges at least two distinct skills of the skills
// directory into a name no other skill, bundled one or folder holds. It
// returns the merged skill parsed, with its folder set, and changes
// nothing.
func (l *Library) CheckMerge(p MergePlan) (*Skill, error) {
	if err := l.writable(); err != nil {
		return nil, err
	}
	if len(p.Sources) < 2 {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "a merge needs at least two skills; got %d", len(p.Sources))
	}
	seen := map[string]bool{}
	var first *Skill
	for _, name := range p.Sources {
		if seen[name] {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "skill %q is listed twice in the merge", name)
		}
		seen[name] = true
		sk, ok := l.Get(name)
		if !ok {
			return nil, tool.Errorf(tool.CodeNotFound, "the merge lists skill %q, which does not exist", name)
		}
		if sk.External || !subdir.Within(l.opts.Dir, sk.Dir) {
			return nil, tool.Errorf(tool.CodeDenied, "skill %q lives in the read-only directory %s and cannot be merged", name, filepath.Dir(sk.Dir))
		}
		if first == nil {
			first = sk
		}
	}
	if err := CheckName(p.Name); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "merged name %s: %v", quoteOrEmpty(p.Name), err)
	}
	if sk, ok := l.Get(p.Name); ok && !seen[p.Name] {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "merged name %q is taken by another skill at %s", p.Name, sk.Dir)
	}
	bundled, err := l.BundledNames()
	if err != nil {
		return nil, err
	}
	if bundled[p.Name] && !seen[p.Name] {
		return nil, tool.Errorf(tool.CodeDenied, "merged name %q is a bundled skill's", p.Name)
	}
	// The category is taken as given: "/etc" or "a/../b" is refused, not
	// tidied into something the model did not write.
	category := strings.TrimSpace(p.Category)
	if category == "" {
		category, _ = filepath.Rel(l.opts.Dir, filepath.Dir(first.Dir))
		category = filepath.ToSlash(category)
		if category == "." {
			category = ""
		}
	}
	if category != "" && !validCategory(category) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "merged category %q is not accepted; want lowercase letters, digits, '.', '_' and '-' (like \"devops\")", category)
	}
	dir := filepath.Join(l.opts.Dir, filepath.FromSlash(category), p.Name)
	if sk, ok := l.Get(p.Name); (!ok || sk.Dir != dir) && exists(dir) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s already exists", dir)
	}
	sk, err := l.checkContent(p.Name, p.Content)
	if err != nil {
		return nil, err
	}
	sk.Dir, sk.Path, sk.Category = dir, filepath.Join(dir, FileName), category
	return sk, nil
}

// ApplyMerge checks the merge (CheckMerge), moves its sources to the
// archive and writes the merged skill, recording the merge so Restore can
// undo it. If the merged skill cannot be written, the sources are moved
// back.
func (l *Library) ApplyMerge(p MergePlan) (Merge, error) {
	sk, err := l.CheckMerge(p)
	if err != nil {
		return Merge{}, err
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	now := l.opts.Clock.Now().UTC()
	m := Merge{ID: now.Format("20060102T150405.000000000Z") + "-" + p.Name, Into: p.Name, Category: sk.Category,
		Sources: append([]string(nil), p.Sources...), At: now, Hash: hashOf([]byte(p.Content))}
	var moved []Archived
	undo := func(cause error) (Merge, error) {
		for _, a := range moved {
			if err := l.restoreEntry(a); err != nil {
				cause = fmt.Errorf("%w; and skill %q stays in the archive: %v", cause, a.Name, err)
			}
		}
		return Merge{}, cause
	}
	for _, name := range p.Sources {
		src, ok := l.Get(name)
		if !ok {
			return undo(fmt.Errorf("skill %q went away during the merge", name))
		}
		a, err := l.archiveLocked(src, ReasonMerged, m.ID)
		if err != nil {
			return undo(err)
		}
		moved = append(moved, a)
	}
	if err := writeAtomic(sk.Path, []byte(p.Content), 0o644); err != nil {
		os.RemoveAll(sk.Dir)
		return undo(err)
	}
	l.invalidate()
	unlock, err := l.lockRecords()
	if err != nil {
		return m, err
	}
	idx, err := l.readArchive()
	if err == nil {
		idx.Merges = append(idx.Merges, m)
		err = l.writeArchive(idx)
	}
	unlock()
	if err != nil {
		return m, err
	}
	l.noteCreated(p.Name, OriginAgent)
	return m, nil
}

// BundledNames are the skills installed from those shipped with hermes,
// by the skills directory's .bundled.json.
func (l *Library) BundledNames() (map[string]bool, error) {
	out := map[string]bool{}
	if l.opts.Dir == "" {
		return out, nil
	}
	man, err := readManifest(filepath.Join(l.opts.Dir, manifestName))
	if err != nil {
		return nil, err
	}
	for name := range man.Skills {
		out[name] = true
	}
	return out, nil
}
