package files

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hermes-go/hermes/internal/udiff"
	"os"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed patch.md
var patchDescription string

// maxPatchBytes is the largest file patch edits; bigger files are data,
// not source, and are better rewritten by a program.
const maxPatchBytes = 16 << 20

// maxDiffChars caps the diff in the result; the change itself is not
// affected.
const maxDiffChars = 20_000

// Patch is the patch tool.
type Patch struct{ o Options }

type patchArgs struct {
	Path       string  `json:"path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
}

// PatchResult is patch's data. Match is "exact" or "whitespace_tolerant";
// Diff is a unified diff of the change.
type PatchResult struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	Match        string `json:"match"`
	Diff         string `json:"diff"`
}

// Spec describes patch. It is not idempotent: once applied, the old text
// is gone and a retry fails or, with replace_all, may change other text.
func (p *Patch) Spec() tool.Spec {
	return tool.Spec{
		Name:        "patch",
		Description: patchDescription,
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "Path to the file to edit."},
    "old_string": {"type": "string", "description": "Text to find in the file. Must be unique unless replace_all is true; include enough surrounding lines to make it so."},
    "new_string": {"type": "string", "description": "Replacement text. An empty string deletes old_string."},
    "replace_all": {"type": "boolean", "default": false, "description": "Replace every occurrence instead of requiring a unique match."}
  },
  "required": ["path", "old_string", "new_string"]
}`),
		Toolset: Toolset,
		PathArg: "path",
	}
}

// Call replaces old_string with new_string and writes the file atomically.
// Nothing is written when the match is missing or ambiguous.
func (p *Patch) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a patchArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be {path, old_string, new_string, replace_all?}: %v", err)
	}
	switch {
	case a.OldString == nil || a.NewString == nil:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string and new_string are both required")
	case *a.OldString == "":
		return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string is empty; give the text to replace (to create or overwrite a whole file, use write_file)")
	case *a.OldString == *a.NewString:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string and new_string are identical; nothing would change")
	}
	abs, err := p.o.abs(ctx, a.Path)
	if err != nil {
		return nil, err
	}
	if err := p.o.check(ctx, abs); err != nil {
		return nil, err
	}
	if err := p.o.checkRead(ctx, abs); err != nil {
		return nil, err
	}
	data, err := p.o.readPatched(ctx, abs)
	if err != nil {
		return nil, err
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a binary file; patch edits text only", abs)
	}
	old := string(data)
	next, n, how, err := replace(old, *a.OldString, *a.NewString, a.ReplaceAll)
	if err != nil {
		return nil, err
	}
	if next == old {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "the replacement leaves %s unchanged", abs)
	}
	if _, err := p.o.write(ctx, abs, []byte(next)); err != nil {
		return nil, err
	}
	changed(ctx, abs, false, &old, next)
	name := p.o.display(ctx, abs)
	diff := udiff.Unified(strings.TrimPrefix(name, "/"), old, next, 3)
	if len(diff) > maxDiffChars {
		diff = diff[:maxDiffChars] + fmt.Sprintf("\n… [diff cut at %d of %d characters; read the file to see the rest]", maxDiffChars, len(diff))
	}
	return PatchResult{Path: name, Replacements: n, Match: how, Diff: diff}, nil
}

// readPatched reads the file patch edits: a regular file of at most
// maxPatchBytes. On an FS that is one request.
func (o Options) readPatched(ctx context.Context, abs string) ([]byte, error) {
	if o.FS != nil {
		data, err := o.FS.ReadFile(ctx, abs, maxPatchBytes)
		switch {
		case errors.Is(err, syscall.EISDIR):
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give a file path", abs)
		case errors.Is(err, ErrTooLarge):
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is over %d bytes; patch edits files up to %d bytes", abs, maxPatchBytes, maxPatchBytes)
		case err != nil:
			return nil, o.statErrorFS(ctx, abs, err)
		}
		return data, nil
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, statError(abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give a file path", abs)
	}
	if fi.Size() > maxPatchBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is %d bytes; patch edits files up to %d bytes", abs, fi.Size(), maxPatchBytes)
	}
	if text, ok := readThrough(ctx, abs, fi.Size()); ok {
		return []byte(text), nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, statError(abs, err)
	}
	return data, nil
}

// replace applies the edit to content: an exact match first, then the same
// text with the file's CRLF line endings, then a line-by-line match that
// ignores leading and trailing whitespace. It returns the new content,
// the number of replacements and which kind of match was used.
func replace(content, old, new string, all bool) (string, int, string, error) {
	crlf := strings.Contains(content, "\r\n")
	tries := []struct{ old, new string }{{old, new}}
	if crlf && !strings.Contains(old, "\r\n") && strings.Contains(old, "\n") {
		tries = append(tries, struct{ old, new string }{toCRLF(old), toCRLF(new)})
	}
	for _, t := range tries {
		n := strings.Count(content, t.old)
		if n == 0 {
			continue
		}
		if n > 1 && !all {
			return "", 0, "", ambiguous(n, lineNumbers(content, t.old))
		}
		if all {
			return strings.ReplaceAll(content, t.old, t.new), n, "exact", nil
		}
		return strings.Replace(content, t.old, t.new, 1), 1, "exact", nil
	}
	next, n, err := replaceLoose(content, old, new, all)
	if err != nil {
		return "", 0, "", err
	}
	return next, n, "whitespace_tolerant", nil
}

// lineNumbers returns the first lines of content where old starts.
func lineNumbers(content, old string) []int {
	var lines []int
	for off := 0; len(lines) < 10; {
		i := strings.Index(content[off:], old)
		if i < 0 {
			break
		}
		lines = append(lines, strings.Count(content[:off+i], "\n")+1)
		off += i + len(old)
	}
	return lines
}

func ambiguous(n int, lines []int) error {
	where := make([]string, len(lines))
	for i, l := range lines {
		where[i] = fmt.Sprint(l)
	}
	more := ""
	if n > len(lines) {
		more = ", ..."
	}
	return tool.Errorf(tool.CodeInvalidArguments, "old_string matches %d places (starting at lines %s%s); nothing was changed. Include more surrounding lines in old_string so it matches exactly one place, or set replace_all to true to change them all", n, strings.Join(where, ", "), more)
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
