package compress

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// envelope is the shape every hermes tool result reaches the model in:
// {"status":"ok","data":...} or
// {"status":"error","error_code":...,"message":...,"data":...}.
type envelope struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorCode string          `json:"error_code"`
	Message   string          `json:"message"`
}

// parseEnvelope reads content as an envelope. Content that is not one (a
// result from an older hermes or a foreign tool) is treated as ok data.
func parseEnvelope(content string) envelope {
	var e envelope
	if err := json.Unmarshal([]byte(content), &e); err != nil || e.Status == "" {
		raw, _ := json.Marshal(content)
		return envelope{Status: "ok", Data: raw}
	}
	return e
}

// describeResult returns the one line that replaces an old tool result:
// what the call did, built from its name and arguments, and how it ended,
// built from the result. Unknown tools get a generic line.
func describeResult(name, args, content string) string {
	env := parseEnvelope(content)
	size := utf8.RuneCountInString(content)
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	var d map[string]any
	_ = json.Unmarshal(env.Data, &d)

	var did, outcome string
	switch name {
	case "terminal":
		did = "ran `" + oneLine(str(a, "command"), 100) + "`"
		if out, ok := d["output"].(string); ok {
			outcome = fmt.Sprintf("exit %s, %d lines", num(d, "exit_code"), countLines(out))
		}
	case "read_file":
		path := firstNonEmpty(str(d, "path"), str(a, "path"))
		did = "read " + oneLine(path, 160)
		if c, ok := d["content"].(string); ok {
			did += fmt.Sprintf(" (%d chars)", utf8.RuneCountInString(c))
			outcome = "-"
		}
	case "write_file":
		path := firstNonEmpty(str(d, "path"), str(a, "path"))
		did = "wrote " + oneLine(path, 160)
		if _, ok := d["bytes_written"]; ok {
			did += fmt.Sprintf(" (%s bytes)", num(d, "bytes_written"))
			outcome = "-"
		}
	case "search_files":
		path := firstNonEmpty(str(a, "path"), ".")
		did = oneLine(str(a, "pattern"), 80) + " in " + oneLine(path, 120)
		if _, ok := d["total"]; ok {
			outcome = num(d, "total") + " matches"
		}
	case "web_extract":
		var pages []map[string]any
		if json.Unmarshal(env.Data, &pages) == nil && len(pages) > 0 {
			parts := make([]string, 0, len(pages))
			for _, p := range pages {
				if e := str(p, "error"); e != "" {
					parts = append(parts, oneLine(str(p, "url"), 120)+" -> failed: "+oneLine(e, 80))
					continue
				}
				parts = append(parts, fmt.Sprintf("%s -> %s (%d chars)", oneLine(str(p, "url"), 120),
					oneLine(str(p, "title"), 80), utf8.RuneCountInString(str(p, "content"))))
			}
			did, outcome = strings.Join(parts, "; "), "-"
		}
	}
	if did == "" {
		did = oneLine(compactArgs(args), 80)
	}
	switch {
	case env.Status == "error":
		outcome = "error " + env.ErrorCode
		if env.Message != "" {
			outcome += ": " + oneLine(env.Message, 120)
		}
		outcome += fmt.Sprintf(", %d chars", size)
	case outcome == "":
		outcome = fmt.Sprintf("%s, %d chars", env.Status, size)
	}
	line := "[" + name + "] " + did
	if outcome != "-" {
		line += " -> " + outcome
	}
	return line
}

// compactArgs returns args as compact JSON, or as given when it is not
// JSON.
func compactArgs(args string) string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return string(b)
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// num formats m[key] as a number, or "?" when it is not one.
func num(m map[string]any, key string) string {
	if f, ok := m[key].(float64); ok {
		return fmt.Sprintf("%g", f)
	}
	return "?"
}

// countLines counts the lines of s, a final newline not starting another.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// oneLine folds s onto one line and cuts it to max runes with an ellipsis.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
