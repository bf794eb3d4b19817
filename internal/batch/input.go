// Package batch runs one turn per line of a prompts file, several at a
// time, and writes each finished turn as a trajectory in Hermes's
// ShareGPT format: the data sets that fine-tune and evaluate models are
// made this way. A run can be killed at any moment and resumed; every
// prompt ends up in the output exactly once.
package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Line is one prompt of the input file.
type Line struct {
	// Index is the line's position among the prompts, from 0; it is
	// what the output and the checkpoint know the prompt by.
	Index int `json:"-"`
	// LineNo is the line's number in the file, from 1, for messages.
	LineNo int `json:"-"`
	// Prompt is the user's message of the turn.
	Prompt string `json:"prompt"`
	// Cwd, when set, is where the turn's tools start.
	Cwd string `json:"cwd,omitempty"`
	// Toolsets, when set, replace the run's toolsets for this prompt.
	Toolsets []string `json:"toolsets,omitempty"`
}

// maxLine bounds one line of the prompts file, so that a file that is
// not JSONL fails with a message instead of filling memory.
const maxLine = 16 << 20

// ReadFile reads the prompts of a JSONL file; see Read.
func ReadFile(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, nil
}

// Read reads prompts, one JSON object per line: {"prompt": "…"} with
// optional "cwd" (a directory) and "toolsets" (a list of names). Blank
// lines are skipped. The first bad line fails the whole read, with its
// line number and field, before any turn runs: a data set with a typo
// should not cost half a run's model calls first.
func Read(r io.Reader) ([]Line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Line
	for n := 1; sc.Scan(); n++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		l, err := parseLine(raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		l.Index, l.LineNo = len(out), n
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w (a line may hold up to %d bytes)", len(out)+1, err, maxLine)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf(`no prompts: want one JSON object per line, such as {"prompt": "Summarise README.md"}`)
	}
	return out, nil
}

// parseLine decodes one line, naming the field that is wrong and what
// it accepts.
func parseLine(raw []byte) (Line, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Line{}, fmt.Errorf(`not a JSON object (%v); want {"prompt": "…"} with optional "cwd" and "toolsets"`, err)
	}
	var l Line
	for k, v := range fields {
		switch k {
		case "prompt":
			if err := json.Unmarshal(v, &l.Prompt); err != nil {
				return Line{}, fmt.Errorf("prompt: %s is not a string", short(v))
			}
		case "cwd":
			if err := json.Unmarshal(v, &l.Cwd); err != nil {
				return Line{}, fmt.Errorf("cwd: %s is not a string naming a directory", short(v))
			}
		case "toolsets":
			if err := json.Unmarshal(v, &l.Toolsets); err != nil {
				return Line{}, fmt.Errorf(`toolsets: %s is not a list of toolset names such as ["terminal", "file"]`, short(v))
			}
		default:
			return Line{}, fmt.Errorf("unknown field %q; the fields are prompt, cwd and toolsets", k)
		}
	}
	if strings.TrimSpace(l.Prompt) == "" {
		return Line{}, fmt.Errorf(`prompt: missing or empty; want a non-empty string, as in {"prompt": "Summarise README.md"}`)
	}
	if l.Cwd != "" {
		if st, err := os.Stat(l.Cwd); err != nil || !st.IsDir() {
			return Line{}, fmt.Errorf("cwd: %q is not a directory", l.Cwd)
		}
	}
	for _, t := range l.Toolsets {
		if strings.TrimSpace(t) == "" {
			return Line{}, fmt.Errorf("toolsets: an empty name in %s; want toolset names such as terminal", short(fields["toolsets"]))
		}
	}
	return l, nil
}

// short is a value as it appears in the file, cut for an error message.
func short(v json.RawMessage) string {
	s := string(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
