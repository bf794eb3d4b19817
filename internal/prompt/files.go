package prompt

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"unicode/utf8"
)

// DefaultFileCap is the most characters taken from one context file. A
// longer file is cut, with a note saying how much was left out.
const DefaultFileCap = 20_000

// DefaultTotalCap is the most characters taken from all project context
// files together, so a repository full of instruction files cannot crowd
// out the conversation.
const DefaultTotalCap = 50_000

// maxFileBytes is the size above which a context file is not read at all:
// no instruction file is that big, and reading one whole to scan it would
// only cost memory.
const maxFileBytes = 4 << 20

// fileText is one instruction file as it enters the prompt.
type fileText struct {
	// name is how the prompt names the file: a path relative to the
	// working directory, or "SOUL.md".
	name string
	// text is the file's content, whole.
	text string
}

// readInstructions reads an instruction file whole. It returns
// fs.ErrNotExist for a missing file, and an error naming the file for one
// that is no regular file, too big or unreadable.
func readInstructions(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		// A FIFO or device would block or never end.
		return "", fmt.Errorf("%s is not a regular file (mode %s)", path, info.Mode().Type())
	}
	if info.Size() > maxFileBytes {
		return "", fmt.Errorf("%s has %d bytes; context files of at most %d bytes are read", path, info.Size(), maxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read context file: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // an editor's BOM is no content
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// blockedLine is what replaces a file that tries to take over the prompt:
// the file is named, with the reason, so the model (and a user reading the
// prompt) know something was withheld and why.
func blockedLine(name, reason string) string {
	return "[BLOCKED: " + name + " — " + reason + "]"
}

// scanned returns the file's text, or its blocked line when scan finds an
// injection; found reports which.
func scanned(f fileText, scan Scanner, log *slog.Logger) (text string, blocked bool) {
	if reason, found := scan(f.text); found {
		log.Warn("context file blocked: it looks like a prompt injection", "file", f.name, "reason", reason)
		return blockedLine(f.name, reason), true
	}
	return f.text, false
}

// capText cuts text to at most limit characters, ending at a line break
// when one is near the end, and appends a note naming the file, how much
// was left out and why. why completes "cut at ...".
func capText(text, name string, limit int, why string) string {
	total := utf8.RuneCountInString(text)
	if total <= limit {
		return text
	}
	cut := text[:byteOffset(text, limit)]
	if nl := strings.LastIndexByte(cut, '\n'); nl >= len(cut)*4/5 {
		cut = cut[:nl]
	}
	left := total - utf8.RuneCountInString(cut)
	return strings.TrimRight(cut, "\n") + "\n\n" +
		fmt.Sprintf("[truncated: %d of %d characters of %s left out; %s]", left, total, name, why)
}

// byteOffset is the byte index of the n-th rune of s (len(s) if s is
// shorter).
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// isMissing reports whether err means the file is simply not there, which
// is normal and not worth a warning.
func isMissing(err error) bool { return errors.Is(err, fs.ErrNotExist) }
