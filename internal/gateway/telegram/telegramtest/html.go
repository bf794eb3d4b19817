package telegramtest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// isTag reports whether Telegram's HTML parse_mode supports the tag.
func isTag(name string) bool {
	switch name {
	case "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span",
		"tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji":
		return true
	}
	return false
}

// parseHTML checks text the way Telegram parses parse_mode HTML and
// returns the text without markup. Unknown or unbalanced tags and a bare
// '<' or '&' are errors, with Telegram's wording after "can't parse
// entities: ".
func parseHTML(s string) (string, error) {
	entityRE := regexp.MustCompile(`^&(lt|gt|amp|quot|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});`)
	hrefRE := regexp.MustCompile(`^\s+href\s*=\s*"[^"<]*"\s*$`)
	var out strings.Builder
	var stack []string
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return "", fmt.Errorf("Unclosed start tag at byte offset %d", i)
			}
			tag := s[i+1 : i+end]
			if name, ok := strings.CutPrefix(tag, "/"); ok {
				name = strings.ToLower(strings.TrimSpace(name))
				if len(stack) == 0 || stack[len(stack)-1] != name {
					return "", fmt.Errorf("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", i, top(stack), name)
				}
				stack = stack[:len(stack)-1]
			} else {
				name, attrs := tagName(tag)
				if !isTag(name) {
					return "", fmt.Errorf("Unsupported start tag \"%s\" at byte offset %d", name, i)
				}
				if t := top(stack); t == "code" || (t == "pre" && name != "code") {
					return "", fmt.Errorf("Unsupported tag \"%s\" inside \"%s\" at byte offset %d", name, t, i)
				}
				if name == "a" && !hrefRE.MatchString(attrs) {
					return "", fmt.Errorf("Can't find href attribute of tag \"a\" at byte offset %d", i)
				}
				stack = append(stack, name)
			}
			i += end + 1
		case '&':
			m := entityRE.FindString(s[i:])
			if m == "" {
				return "", fmt.Errorf("Character entity expected at byte offset %d", i)
			}
			out.WriteString(decodeEntity(m))
			i += len(m)
		default:
			out.WriteByte(s[i])
			i++
		}
	}
	if len(stack) > 0 {
		return "", fmt.Errorf("Can't find end tag corresponding to start tag \"%s\"", top(stack))
	}
	return out.String(), nil
}

func top(stack []string) string {
	if len(stack) == 0 {
		return ""
	}
	return stack[len(stack)-1]
}

func tagName(tag string) (name, attrs string) {
	i := strings.IndexAny(tag, " \t\n")
	if i < 0 {
		return strings.ToLower(tag), ""
	}
	return strings.ToLower(tag[:i]), tag[i:]
}

func decodeEntity(m string) string {
	switch m {
	case "&lt;":
		return "<"
	case "&gt;":
		return ">"
	case "&amp;":
		return "&"
	case "&quot;":
		return `"`
	}
	num := strings.TrimSuffix(strings.TrimPrefix(m, "&#"), ";")
	base := 10
	if rest, ok := strings.CutPrefix(num, "x"); ok {
		num, base = rest, 16
	}
	n, _ := strconv.ParseInt(num, base, 32)
	return string(rune(n))
}

// UTF16Len is the length of s in UTF-16 code units, the unit of
// Telegram's text limits and entity offsets.
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
