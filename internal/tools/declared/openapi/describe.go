package openapi

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDescription bounds the part of an operation's description copied
// into the tool's: the whole description is sent with every request to
// the model, and the first paragraphs carry what matters.
const maxDescription = 600

// describe writes a tool description from the operation's summary and
// description, plus what it returns when the response names a schema.
// Nothing is invented: no "not for" advice unless the document wrote it.
func describe(d *Document, o *operation) string {
	var parts []string
	summary := oneLine(str(o.op["summary"]))
	if summary != "" {
		parts = append(parts, sentence(summary))
	}
	if desc := strings.TrimSpace(str(o.op["description"])); desc != "" && desc != summary && sentence(desc) != sentence(summary) {
		parts = append(parts, sentence(truncate(desc, maxDescription)))
	}
	if len(parts) == 0 {
		if item := oneLine(str(o.item["summary"])); item != "" {
			parts = append(parts, sentence(item))
		} else {
			parts = append(parts, strings.ToUpper(o.method)+" "+o.path+".")
		}
	}
	if r := returns(d, o.op["responses"]); r != "" {
		parts = append(parts, r)
	}
	if o.deprecated {
		parts = append(parts, "The API marks this operation deprecated.")
	}
	return strings.Join(parts, "\n\n")
}

// returns says in a few words what a successful call returns, when the lowest
// documented 2xx response names a schema: "Returns a list of Pet."
func returns(d *Document, responses any) string {
	rs, _ := responses.(map[string]any)
	codes := successCodes(rs)
	if len(codes) == 0 {
		return ""
	}
	code := strconv.Itoa(codes[0])
	resp, _ := rs[code].(map[string]any)
	if ref, ok := resp["$ref"].(string); ok {
		resp, _ = d.lookupShallow(ref)
	}
	content, _ := resp["content"].(map[string]any)
	for _, mt := range sortedKeys(content) {
		if !isJSON(mt) {
			continue
		}
		media, _ := content[mt].(map[string]any)
		s, _ := media["schema"].(map[string]any)
		if ref, ok := s["$ref"].(string); ok {
			return "Returns " + article(refName(ref)) + " " + refName(ref) + "."
		}
		if items, ok := s["items"].(map[string]any); ok && s["type"] == "array" {
			if ref, ok := items["$ref"].(string); ok {
				return "Returns a list of " + refName(ref) + "."
			}
		}
	}
	return ""
}

// expectCodes lists the documented 2xx status codes; none (any 2xx) when
// the document uses a 2XX range or documents no success at all.
func expectCodes(responses any) []int {
	rs, _ := responses.(map[string]any)
	for k := range rs {
		if strings.EqualFold(k, "2XX") {
			return nil
		}
	}
	return successCodes(rs)
}

func successCodes(rs map[string]any) []int {
	var codes []int
	for k := range rs {
		if n, err := strconv.Atoi(k); err == nil && n >= 200 && n < 300 {
			codes = append(codes, n)
		}
	}
	slices.Sort(codes)
	return codes
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// oneLine joins a multi-line summary into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sentence ends s with a full stop unless it already ends a sentence.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") ||
		strings.HasSuffix(s, "…") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "```") {
		return s
	}
	return s + "."
}

// truncate cuts s to about max characters, at a paragraph, sentence or
// word boundary, and marks the cut with an ellipsis.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	cutAt := string(r[:max])
	for _, sep := range []string{"\n\n", ". ", "\n", " "} {
		if i := strings.LastIndex(cutAt, sep); i > max/2 {
			if sep == ". " {
				return cutAt[:i+1]
			}
			return strings.TrimSpace(cutAt[:i]) + " …"
		}
	}
	return cutAt + "…"
}

func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
