package skill

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/subdir"
	"github.com/hermes-go/hermes/internal/tool"
)

// Create writes a new skill from the full SKILL.md content, under
// category (or the content's metadata.hermes.category) when given.
func (l *Library) Create(ctx context.Context, name, category, content string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	if err := l.writable(); err != nil {
		return "", err
	}
	if err := CheckName(name); err != nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "name %s: %v", quoteOrEmpty(name), err)
	}
	if sk, ok := l.Get(name); ok {
		return "", tool.Errorf(tool.CodeInvalidArguments, "skill %q already exists at %s; use action \"patch\" for a small change or \"edit\" to rewrite it", name, sk.Path)
	}
	sk, err := l.checkContent(name, content)
	if err != nil {
		return "", err
	}
	category = strings.Trim(strings.TrimSpace(category), "/")
	if category == "" {
		category = sk.Category
	}
	if category != "" && !validCategory(category) {
		return "", tool.Errorf(tool.CodeInvalidArguments, "category %q is not accepted; want lowercase letters, digits, '.', '_' and '-' (like \"devops\")", category)
	}
	dir := filepath.Join(l.opts.Dir, filepath.FromSlash(category), name)
	if _, err := os.Stat(dir); err == nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "directory %s already exists but holds no valid skill; fix it with \"edit\" or remove it first", dir)
	}
	file := filepath.Join(dir, FileName)
	if err := writeAtomic(file, []byte(content), 0o644); err != nil {
		return "", err
	}
	l.invalidate()
	l.noteCreated(name, OriginAgent)
	return file, nil
}

// Edit replaces a skill's SKILL.md with content.
func (l *Library) Edit(ctx context.Context, name, content string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return "", err
	}
	if _, err := l.checkContent(name, content); err != nil {
		return "", err
	}
	if err := writeAtomic(sk.Path, []byte(content), 0o644); err != nil {
		return "", err
	}
	l.invalidate()
	l.noteModified(sk.Name)
	return sk.Path, nil
}

// Patch replaces the one occurrence of old with new in the skill's
// SKILL.md, or in the support file file when given.
func (l *Library) Patch(ctx context.Context, name, file, old, new string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return "", err
	}
	target, isMain := sk.Path, true
	if f := strings.TrimSpace(file); f != "" && f != FileName {
		rel, err := supportPath("file_path", f)
		if err != nil {
			return "", tool.Errorf(tool.CodeInvalidArguments, "%v", err)
		}
		if target, err = resolveInside(sk.Dir, rel); err != nil {
			return "", tool.Errorf(tool.CodeDenied, "file_path %v", err)
		}
		isMain = false
	}
	data, err := os.ReadFile(target)
	if os.IsNotExist(err) {
		return "", tool.Errorf(tool.CodeNotFound, "file_path %q does not exist in skill %q; create it with write_file", file, name)
	} else if err != nil {
		return "", fmt.Errorf("read %s: %w", target, err)
	}
	text := string(data)
	switch n := strings.Count(text, old); n {
	case 0:
		return "", tool.Errorf(tool.CodeInvalidArguments, "old_string matches 0 times in %s; copy the exact text (whitespace included) from skill_view", filepath.Base(target))
	case 1:
	default:
		return "", tool.Errorf(tool.CodeInvalidArguments, "old_string matches %d times in %s; it must match exactly once: include more surrounding text", n, filepath.Base(target))
	}
	text = strings.Replace(text, old, new, 1)
	if isMain {
		if _, err := l.checkContent(name, text); err != nil {
			return "", err
		}
	} else if err := l.checkSupport(text); err != nil {
		return "", err
	}
	if err := writeAtomic(target, []byte(text), 0o644); err != nil {
		return "", err
	}
	l.invalidate()
	l.noteModified(sk.Name)
	return target, nil
}

// Delete removes a skill's directory.
func (l *Library) Delete(ctx context.Context, name string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return "", err
	}
	if err := os.RemoveAll(sk.Dir); err != nil {
		return "", fmt.Errorf("delete skill %q: %w", name, err)
	}
	l.invalidate()
	l.forget(sk.Name)
	return sk.Dir, nil
}

// WriteFile writes a support file of a skill.
func (l *Library) WriteFile(ctx context.Context, name, file, content string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return "", err
	}
	rel, err := supportPath("file_path", file)
	if err != nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	if len(content) > MaxSupportBytes {
		return "", tool.Errorf(tool.CodeInvalidArguments, "file_content is %d bytes; at most %d are accepted per support file", len(content), MaxSupportBytes)
	}
	if err := l.checkSupport(content); err != nil {
		return "", err
	}
	full, err := resolveInside(sk.Dir, rel)
	if err != nil {
		return "", tool.Errorf(tool.CodeDenied, "file_path %v", err)
	}
	perm := os.FileMode(0o644)
	if strings.HasPrefix(rel, "scripts/") {
		perm = 0o755
	}
	if err := writeAtomic(full, []byte(content), perm); err != nil {
		return "", err
	}
	l.noteModified(sk.Name)
	return full, nil
}

// RemoveFile deletes a support file of a skill.
func (l *Library) RemoveFile(ctx context.Context, name, file string) (string, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	sk, err := l.local(name)
	if err != nil {
		return "", err
	}
	rel, err := supportPath("file_path", file)
	if err != nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	full, err := resolveInside(sk.Dir, rel)
	if err != nil {
		return "", tool.Errorf(tool.CodeDenied, "file_path %v", err)
	}
	if fi, err := os.Lstat(full); err != nil || fi.IsDir() {
		return "", tool.Errorf(tool.CodeNotFound, "skill %q has no file %q; its support files: %s", name, rel, strings.Join(sk.SupportFiles(), ", "))
	}
	if err := os.Remove(full); err != nil {
		return "", fmt.Errorf("remove %s: %w", full, err)
	}
	l.noteModified(sk.Name)
	return full, nil
}

// writable fails when there is no skills directory to write to.
func (l *Library) writable() error {
	if l.opts.Dir == "" {
		return tool.Errorf(tool.CodeDenied, "no writable skills directory is configured")
	}
	return nil
}

// local returns a skill this library may change: one in Dir, not in an
// external directory.
func (l *Library) local(name string) (*Skill, error) {
	if err := l.writable(); err != nil {
		return nil, err
	}
	sk, err := l.find(name)
	if err != nil {
		return nil, err
	}
	if sk.External || !subdir.Within(l.opts.Dir, sk.Dir) {
		return nil, tool.Errorf(tool.CodeDenied, "skill %q lives in the read-only external directory %s; copy it into %s to change it", sk.Name, filepath.Dir(sk.Dir), l.opts.Dir)
	}
	return sk, nil
}

// checkContent parses a proposed SKILL.md, checks its name, and scans it.
func (l *Library) checkContent(name, content string) (*Skill, error) {
	sk, err := Parse("content", []byte(content))
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	if sk.Name != name {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "content: front matter name %q differs from name %q; they must be equal", sk.Name, name)
	}
	if err := l.scan("content", content); err != nil {
		return nil, err
	}
	return sk, nil
}

// checkSupport scans a support file's text.
func (l *Library) checkSupport(content string) error {
	return l.scan("file_content", content)
}

// scan runs the injection scanner, if any, over text.
func (l *Library) scan(field, text string) error {
	if l.opts.Scan == nil {
		return nil
	}
	if reason, found := l.opts.Scan(text); found {
		return tool.Errorf(tool.CodeDenied, "%s looks like a prompt injection (%s); skills are loaded into future conversations, so this is not saved", field, reason)
	}
	return nil
}
