package skill

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/lazy"
)

// nameRE is what a skill (and category) name may look like: lowercase, so
// it is also a safe directory name and slash command on every platform.
var nameRE = lazy.Regexp{Expr: `^[a-z0-9][a-z0-9._-]*$`}

// Platforms are the values platforms: accepts.
var knownPlatforms = []string{"linux", "macos", "windows"}

// decode fills s from the front matter, validating each field and keeping
// keys it does not know in Extra.
func (s *Skill) decode(file string, raw map[string]any) error {
	var err error
	for key, v := range raw {
		switch key {
		case "name":
			s.Name, err = str(file, "name", v)
		case "description":
			s.Description, err = str(file, "description", v)
		case "version":
			s.Version, err = scalar(file, "version", v)
		case "platforms":
			s.Platforms, err = list(file, "platforms", v)
		case "metadata":
			err = s.decodeMetadata(file, v)
		default:
			if s.Extra == nil {
				s.Extra = make(map[string]any)
			}
			s.Extra[key] = v
		}
		if err != nil {
			return err
		}
	}
	if err := s.topCategory(file); err != nil {
		return err
	}
	return s.validate(file)
}

// topCategory takes a top-level category: when metadata.hermes has none.
// Skills written for other agents put it there, and a skill installed
// from its folder should land in its category either way.
func (s *Skill) topCategory(file string) error {
	v, ok := s.Extra["category"]
	if !ok || v == nil {
		return nil
	}
	c, err := str(file, "category", v)
	if err != nil {
		return err
	}
	if c = strings.TrimSpace(c); c != "" && !validCategory(c) {
		return &FieldError{File: file, Field: "category", Value: fmt.Sprintf("%q", c), Accept: "want lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, segments joined by '/'"}
	}
	delete(s.Extra, "category")
	if s.Category == "" {
		s.Category = c
	}
	return nil
}

// decodeMetadata reads metadata.hermes; other metadata stays in Extra.
func (s *Skill) decodeMetadata(file string, v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return &FieldError{File: file, Field: "metadata", Value: describe(v), Accept: "want a mapping (metadata: {hermes: {tags: [...]}})"}
	}
	if s.Extra == nil {
		s.Extra = make(map[string]any)
	}
	s.Extra["metadata"] = m
	hv, ok := m["hermes"]
	if !ok || hv == nil {
		return nil
	}
	h, ok := hv.(map[string]any)
	if !ok {
		return &FieldError{File: file, Field: "metadata.hermes", Value: describe(hv), Accept: "want a mapping with tags, category, requires_toolsets, requires_tools, fallback_for_toolsets, fallback_for_tools"}
	}
	lists := map[string]*[]string{
		"tags":                  &s.Tags,
		"requires_toolsets":     &s.RequiresToolsets,
		"requires_tools":        &s.RequiresTools,
		"fallback_for_toolsets": &s.FallbackForToolsets,
		"fallback_for_tools":    &s.FallbackForTools,
	}
	for key, dst := range lists {
		if v, ok := h[key]; ok {
			l, err := list(file, "metadata.hermes."+key, v)
			if err != nil {
				return err
			}
			*dst = l
		}
	}
	if v, ok := h["category"]; ok && v != nil {
		c, err := str(file, "metadata.hermes.category", v)
		if err != nil {
			return err
		}
		c = strings.TrimSpace(c)
		if c != "" && !validCategory(c) {
			return &FieldError{File: file, Field: "metadata.hermes.category", Value: fmt.Sprintf("%q", c), Accept: "want lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, segments joined by '/'"}
		}
		s.Category = c
	}
	return nil
}

// validate checks the fields every skill needs.
func (s *Skill) validate(file string) error {
	s.Name = strings.TrimSpace(s.Name)
	s.Description = strings.TrimSpace(s.Description)
	if err := CheckName(s.Name); err != nil {
		return &FieldError{File: file, Field: "name", Value: quoteOrEmpty(s.Name), Accept: err.Error()}
	}
	if s.Description == "" {
		return &FieldError{File: file, Field: "description", Accept: "want one to three sentences saying what the skill does and when to use it"}
	}
	if n := utf8.RuneCountInString(s.Description); n > MaxDescriptionChars {
		return &FieldError{File: file, Field: "description", Value: fmt.Sprintf("%d characters long", n), Accept: fmt.Sprintf("at most %d are accepted; move details into the body", MaxDescriptionChars)}
	}
	for i, p := range s.Platforms {
		p = strings.ToLower(strings.TrimSpace(p))
		if p == "darwin" {
			p = "macos"
		}
		if !contains(knownPlatforms, p) {
			return &FieldError{File: file, Field: fmt.Sprintf("platforms[%d]", i), Value: fmt.Sprintf("%q", s.Platforms[i]), Accept: "want linux, macos or windows (leave platforms out for all)"}
		}
		s.Platforms[i] = p
	}
	return nil
}

// CheckName returns an error saying what is accepted when name cannot be a
// skill name.
func CheckName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("want a name of lowercase letters, digits, '.', '_' and '-' equal to the skill's directory name")
	case utf8.RuneCountInString(name) > MaxNameChars:
		return fmt.Errorf("want at most %d characters", MaxNameChars)
	case !nameRE.Get().MatchString(name):
		return fmt.Errorf("want lowercase letters, digits, '.', '_' and '-', starting with a letter or digit (like \"deploy-checklist\")")
	}
	return nil
}

// validCategory accepts one or more name-like segments joined by '/'.
func validCategory(c string) bool {
	for _, seg := range strings.Split(c, "/") {
		if !nameRE.Get().MatchString(seg) || len(seg) > MaxNameChars {
			return false
		}
	}
	return true
}

// str reads a string field.
func str(file, field string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	return "", &FieldError{File: file, Field: field, Value: describe(v), Accept: "want a string"}
}

// scalar reads a field that is usually a string but that YAML may have
// typed as a number (version: 1.0).
func scalar(file, field string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(x), nil
	}
	return "", &FieldError{File: file, Field: field, Value: describe(v), Accept: "want a string such as \"1.0.0\""}
}

// list reads a list of strings; a single string counts as a list of one,
// and "a, b" as two, because hand-written front matter often looks so.
func list(file, field string, v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		var out []string
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out, nil
	case []any:
		out := make([]string, 0, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, &FieldError{File: file, Field: fmt.Sprintf("%s[%d]", field, i), Value: describe(e), Accept: "want a string"}
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	}
	return nil, &FieldError{File: file, Field: field, Value: describe(v), Accept: "want a list of strings ([a, b])"}
}

// describe renders a YAML value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", truncate(x, 60))
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case nil:
		return "empty"
	}
	return fmt.Sprintf("%v (%T)", v, v)
}

func quoteOrEmpty(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", truncate(s, 80))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
