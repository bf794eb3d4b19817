package skill

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Limits on a skill's files. A SKILL.md is loaded whole into the
// conversation, so it must stay readable in one go; support files are read
// on demand but are still capped so one cannot fill the context window.
const (
	MaxSkillChars       = 100_000
	MaxSupportBytes     = 1 << 20
	MaxNameChars        = 64
	MaxDescriptionChars = 1024
)

// FileName is the name of a skill's main file.
const FileName = "SKILL.md"

// SupportDirs are the folders of a skill that may hold support files.
var supportDirs = []string{"references", "templates", "scripts", "assets"}

// Skill is one parsed SKILL.md with where it was found.
type Skill struct {
	// Name is the skill's name; it equals its directory's name.
	Name string `json:"name"`
	// Description says what the skill is for and when to use it.
	Description string `json:"description"`
	// Version is free-form, usually semantic ("1.2.0").
	Version string `json:"version,omitempty"`
	// Platforms lists the operating systems the skill works on (linux,
	// macos, windows); empty means all.
	Platforms []string `json:"platforms,omitempty"`
	// Category groups skills in the index: the directory between the
	// skills root and the skill, else metadata.hermes.category.
	Category string `json:"category"`
	// Tags help skills_search find the skill.
	Tags []string `json:"tags,omitempty"`
	// The conditions under which the index shows the skill.
	RequiresToolsets    []string `json:"requires_toolsets,omitempty"`
	RequiresTools       []string `json:"requires_tools,omitempty"`
	FallbackForToolsets []string `json:"fallback_for_toolsets,omitempty"`
	FallbackForTools    []string `json:"fallback_for_tools,omitempty"`
	// Extra holds the front matter's keys hermes does not interpret, kept
	// so tools written for other agents keep their data.
	Extra map[string]any `json:"-"`
	// Body is the Markdown after the front matter.
	Body string `json:"-"`
	// Dir is the skill's directory; Path its SKILL.md.
	Dir  string `json:"-"`
	Path string `json:"-"`
	// External skills come from read-only external_dirs.
	External bool `json:"external,omitempty"`
}

// FieldError is a problem with one front-matter field: it names the file,
// the field, the value found and what is accepted, so the model or a person
// can fix it without guessing.
type FieldError struct {
	File   string
	Field  string
	Value  string
	Accept string
}

func (e *FieldError) Error() string {
	file := e.File
	if file == "" {
		file = FileName
	}
	if e.Value == "" {
		return fmt.Sprintf("%s: field %q is missing or empty; %s", file, e.Field, e.Accept)
	}
	return fmt.Sprintf("%s: field %q is %s; %s", file, e.Field, e.Value, e.Accept)
}

// Parse reads a SKILL.md: the YAML front matter between the first two
// "---" lines, then the body. file names the source in errors. It checks
// every field but not that the name matches a directory; Load does that.
func Parse(file string, data []byte) (*Skill, error) {
	if len(data) > MaxSkillChars {
		if n := utf8.RuneCount(data); n > MaxSkillChars {
			return nil, fmt.Errorf("%s: %d characters; at most %d are accepted: move details into references/ files", file, n, MaxSkillChars)
		}
	}
	front, body, err := splitFrontMatter(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(front, &raw); err != nil {
		flat, ok := flatFrontMatter(front)
		if !ok {
			return nil, fmt.Errorf("%s: front matter is not valid YAML: %w", file, err)
		}
		raw = flat
	}
	if raw == nil {
		return nil, &FieldError{File: file, Field: "name", Accept: "the front matter needs name and description"}
	}
	s := &Skill{Body: string(body), Path: file}
	if err := s.decode(file, raw); err != nil {
		return nil, err
	}
	return s, nil
}

// splitFrontMatter separates the YAML between the opening "---" line and
// the next "---" line from the body that follows.
func splitFrontMatter(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, ok := cutLine(data)
	if !ok && len(rest) == 0 && len(first) == 0 {
		return nil, nil, fmt.Errorf("file is empty; a SKILL.md starts with a \"---\" line, YAML front matter with name and description, another \"---\" line, then the Markdown body")
	}
	if string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, nil, fmt.Errorf("first line is %q; a SKILL.md starts with a \"---\" line opening the YAML front matter", truncate(string(first), 40))
	}
	start := rest
	for len(rest) > 0 {
		line, next, _ := cutLine(rest)
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			front = start[:len(start)-len(rest)]
			return front, bytes.TrimLeft(next, "\r\n"), nil
		}
		rest = next
	}
	return nil, nil, fmt.Errorf("front matter is not closed; add a \"---\" line after the YAML")
}

// flatFrontMatter reads front matter that is not valid YAML but is plain
// "key: value" lines, the commonest hand-written mistake being an unquoted
// description containing ": ". Any indented, list or key-less line makes
// it fail, so real YAML errors are still reported.
func flatFrontMatter(front []byte) (map[string]any, bool) {
	out := map[string]any{}
	for _, line := range strings.Split(string(front), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' || line[0] == '-' {
			return nil, false
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " \t\"'{[") {
			return nil, false
		}
		val = strings.TrimSpace(val)
		if val == "" || strings.ContainsAny(val[:1], "[{&*!|>'\"") {
			return nil, false
		}
		out[key] = val
	}
	return out, len(out) > 0
}

// cutLine splits data after its first newline; ok reports a newline was
// found.
func cutLine(data []byte) (line, rest []byte, ok bool) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:], true
	}
	return data, nil, false
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
