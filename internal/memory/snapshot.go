package memory

import "strings"

// Snapshot is what the two files held when it was taken. The caller keeps
// one per session and renders it into the system prompt: the memory tool
// writes to disk at once, but the running session's prompt stays the same,
// so the provider's prompt cache keeps hitting. Changes show from the next
// session on.
type Snapshot struct {
	Memory      []string
	User        []string
	MemoryLimit int
	UserLimit   int
}

// The headings of the two blocks, as Hermes Agent shows them.
const (
	memoryHeading = "MEMORY (your personal notes)"
	userHeading   = "USER PROFILE (who the user is)"
)

// Render returns the block the system prompt shows, one section per
// non-empty file:
//
//	MEMORY (your personal notes) [67% — 1,474/2,200 chars]
//	entry one
//	§
//	entry two
//
// It returns "" when both files are empty, so the prompt has no empty
// heading.
func (s Snapshot) Render() string {
	var blocks []string
	if len(s.Memory) > 0 {
		blocks = append(blocks, block(memoryHeading, s.Memory, s.MemoryLimit))
	}
	if len(s.User) > 0 {
		blocks = append(blocks, block(userHeading, s.User, s.UserLimit))
	}
	return strings.Join(blocks, "\n\n")
}

func block(heading string, entries []string, limit int) string {
	return heading + " [" + usageOf(entries, limit).String() + "]\n" + format(entries)
}
