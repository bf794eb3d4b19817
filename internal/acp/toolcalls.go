package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/internal/safety/writeguard"
	"github.com/hermes-go/hermes/internal/tools/files"
)

// maxDiffText bounds, in bytes, each side of a diff sent to the editor.
// ACP's diff carries whole files; a larger file's change is told as text
// (its path and size), and the editor opens the file to see it.
const maxDiffText = 256 << 10

// maxLocations bounds the locations one tool call reports, so a search
// with a thousand hits does not flood the editor's panel.
const maxLocations = 50

// locations are the files a call's arguments point at, absolute, with
// the line read_file starts at when it is past the first.
func locations(name, args, workdir string) []acpsdk.ToolCallLocation {
	var a struct {
		Path   string `json:"path"`
		Offset int    `json:"offset"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return nil
	}
	switch name {
	case "read_file", "write_file", "patch", "search_files":
	default:
		return nil
	}
	p := absPath(a.Path, workdir)
	if p == "" && name == "search_files" {
		p = workdir
	}
	if p == "" {
		return nil
	}
	loc := acpsdk.ToolCallLocation{Path: p}
	if name == "read_file" && a.Offset > 1 {
		loc.Line = acpsdk.Ptr(a.Offset)
	}
	return []acpsdk.ToolCallLocation{loc}
}

// absPath is p made absolute against workdir; "" when it cannot be (a
// "~" path, or a relative one without a workdir).
func absPath(p, workdir string) string {
	p = strings.TrimSpace(p)
	switch {
	case p == "" || strings.HasPrefix(p, "~"):
		return ""
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case workdir == "":
		return ""
	}
	return filepath.Join(workdir, p)
}

// searchHit splits a content match of search_files, "name:line: text",
// into its file and line; ok is false for other lines (a file name).
func searchHit(s string) (name string, line int, ok bool) {
	for i := strings.IndexByte(s, ':'); i >= 0; {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i+1 && strings.HasPrefix(s[j:], ": ") {
			n, err := strconv.Atoi(s[i+1 : j])
			return s[:i], n, err == nil && i > 0
		}
		k := strings.IndexByte(s[i+1:], ':')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return "", 0, false
}

// searchLocations are the files and lines a search_files result names.
func searchLocations(data any, workdir string) []acpsdk.ToolCallLocation {
	var r struct {
		Results string `json:"results"`
	}
	raw, _ := json.Marshal(data)
	if json.Unmarshal(raw, &r) != nil || r.Results == "" {
		return nil
	}
	var out []acpsdk.ToolCallLocation
	seen := map[string]bool{}
	for _, line := range strings.Split(r.Results, "\n") {
		if len(out) == maxLocations {
			break
		}
		loc := acpsdk.ToolCallLocation{Path: line}
		if name, n, ok := searchHit(line); ok {
			loc = acpsdk.ToolCallLocation{Path: name, Line: acpsdk.Ptr(n)}
		}
		if loc.Path = absPath(loc.Path, workdir); loc.Path == "" || seen[line] {
			continue
		}
		seen[line] = true
		out = append(out, loc)
	}
	return out
}

// diffContent is the editor's view of a change: an ACP diff (oldText
// absent for a new file), or, when a side is over maxDiffText or the old
// content was not read, a line saying so.
func diffContent(c files.Change) acpsdk.ToolCallContent {
	var old []string
	if c.Old != nil {
		old = []string{*c.Old}
	}
	switch {
	case !c.Created && c.Old == nil:
		return acpsdk.ToolContent(acpsdk.TextBlock(fmt.Sprintf("%s changed; its old content is not shown (binary, unreadable, or too large); open the file to see it", c.Path)))
	case len(c.New) > maxDiffText || (c.Old != nil && len(*c.Old) > maxDiffText):
		size := len(c.New)
		if c.Old != nil {
			size = max(size, len(*c.Old))
		}
		return acpsdk.ToolContent(acpsdk.TextBlock(fmt.Sprintf("%s changed; the diff is not shown: the file is %d bytes, over the %d hermes sends to the editor; open the file to see it", c.Path, size, maxDiffText)))
	}
	return acpsdk.ToolDiffContent(c.Path, c.New, old...)
}

// callForPath returns the running tool call whose path argument leads to
// path (absolute, links resolved), or "" when none does.
func (u *updater) callForPath(path string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, args := range u.running {
		var a struct {
			Path string `json:"path"`
		}
		if json.Unmarshal([]byte(args), &a) != nil {
			continue
		}
		if p := absPath(a.Path, u.workdir); p != "" && writeguard.Resolve(p) == path {
			return id
		}
	}
	return ""
}
