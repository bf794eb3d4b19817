package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/tool"
)

// Toolset is the toolset of the skill tools.
const Toolset = "skills"

// Tools returns the skill tools over lib: skills_list, skills_search,
// skill_view and skill_manage. Offer skills_search only while
// lib.Collapsed reports true; the full index makes it redundant.
func Tools(lib *Library) []tool.Tool {
	return []tool.Tool{&listTool{lib}, &searchTool{lib}, &viewTool{lib}, &manageTool{lib}}
}

// Entry is how the list and search tools show a skill.
type Entry struct {
	Name        string   `json:"name"`
	Category    string   `json:"category"`
	Description string   `json:"description"`
	Tags        []string `json:"tags,omitempty"`
}

func entryOf(sk *Skill) Entry {
	return Entry{Name: sk.Name, Category: sk.group(), Description: sk.Description, Tags: sk.Tags}
}

// listTool is skills_list.
type listTool struct{ lib *Library }

func (t *listTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "skills_list",
		Description: "List saved skills (name, category, description), optionally of one category. Use skill_view(name) to read one.",
		Parameters: json.RawMessage(`{"type":"object","properties":{
  "category":{"type":"string","description":"Only skills of this category, e.g. \"devops\". Omit for all."}}}`),
		Toolset:      Toolset,
		ParallelSafe: true,
		Idempotent:   true,
	}
}

func (t *listTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Category string `json:"category"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	cat := strings.TrimSpace(a.Category)
	out := []Entry{}
	cats := map[string]bool{}
	for _, sk := range t.lib.Skills() {
		cats[sk.group()] = true
		if cat == "" || sk.group() == cat {
			out = append(out, entryOf(sk))
		}
	}
	if cat != "" && len(out) == 0 {
		return nil, tool.Errorf(tool.CodeNotFound, "category %q has no skills; categories: %s", cat, joinKeys(cats))
	}
	return map[string]any{"skills": out, "count": len(out)}, nil
}

// searchTool is skills_search.
type searchTool struct{ lib *Library }

func (t *searchTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "skills_search",
		Description: "Find saved skills by topic (BM25 over name, tags, description and body). Returns the best matches; read one with skill_view(name).",
		Parameters: json.RawMessage(`{"type":"object","properties":{
  "query":{"type":"string","description":"Words describing the task, e.g. \"rollback kubernetes deployment\"."},
  "limit":{"type":"integer","minimum":1,"maximum":20,"default":5,"description":"How many skills to return."}},
  "required":["query"]}`),
		Toolset:      Toolset,
		ParallelSafe: true,
		Idempotent:   true,
	}
}

func (t *searchTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "query is empty; give a few words describing the task")
	}
	if a.Limit <= 0 {
		a.Limit = 5
	}
	type result struct {
		Entry
		Score float64 `json:"score"`
	}
	out := []result{}
	for _, h := range t.lib.Search(a.Query, a.Limit) {
		out = append(out, result{Entry: entryOf(h.Skill), Score: float64(int(h.Score*1000)) / 1000})
	}
	return map[string]any{"query": a.Query, "skills": out}, nil
}

// viewTool is skill_view.
type viewTool struct{ lib *Library }

func (t *viewTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "skill_view",
		Description: "Read a skill: its SKILL.md and the list of its support files, or, with file, one support file (e.g. \"references/api.md\").",
		Parameters: json.RawMessage(`{"type":"object","properties":{
  "name":{"type":"string","description":"The skill's name."},
  "file":{"type":"string","description":"A support file's path relative to the skill, e.g. \"templates/report.md\". Omit for SKILL.md."}},
  "required":["name"]}`),
		Toolset:      Toolset,
		ParallelSafe: true,
		Idempotent:   true,
	}
}

func (t *viewTool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments: %v", err)
	}
	sk, err := t.lib.find(a.Name)
	if err != nil {
		return nil, err
	}
	// Reading a skill is what keeps the curator from retiring it.
	t.lib.noteViewed(sk.Name)
	if f := strings.TrimSpace(a.File); f != "" && f != FileName {
		return viewFile(sk, f)
	}
	data, err := os.ReadFile(sk.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sk.Path, err)
	}
	return map[string]any{
		"name":          sk.Name,
		"category":      sk.group(),
		"path":          sk.Dir,
		"content":       string(data),
		"support_files": nonNil(sk.SupportFiles()),
		"read_only":     sk.External,
	}, nil
}

// viewFile returns one support file; binary files are described, not
// dumped.
func viewFile(sk *Skill, file string) (any, error) {
	rel, err := supportPath("file", file)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	full, err := resolveInside(sk.Dir, rel)
	if err != nil {
		return nil, tool.Errorf(tool.CodeDenied, "file %v", err)
	}
	fi, err := os.Stat(full)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, tool.Errorf(tool.CodeNotFound, "skill %q has no file %q; its support files: %s", sk.Name, rel, strings.Join(sk.SupportFiles(), ", "))
	}
	if fi.Size() > MaxSupportBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "file %q is %d bytes; at most %d are read", rel, fi.Size(), MaxSupportBytes)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", full, err)
	}
	out := map[string]any{"name": sk.Name, "file": rel, "path": full, "size": len(data)}
	if utf8.Valid(data) {
		out["content"] = string(data)
	} else {
		out["note"] = "binary file; its content is not shown"
	}
	return out, nil
}

// find returns the named skill or a not_found error listing close names.
func (l *Library) find(name string) (*Skill, error) {
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "/"))
	if name == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "name is empty; give a skill name from the index or skills_list")
	}
	if sk, ok := l.Get(name); ok && onPlatform(sk, l.opts.Platform) {
		return sk, nil
	}
	var near []string
	for _, h := range l.Search(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(name), 3) {
		near = append(near, h.Skill.Name)
	}
	msg := fmt.Sprintf("no skill named %q", name)
	if len(near) > 0 {
		msg += "; similar: " + strings.Join(near, ", ")
	}
	return nil, tool.Errorf(tool.CodeNotFound, "%s", msg)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func joinKeys(m map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
