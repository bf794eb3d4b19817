package tui

import (
	"fmt"
	"strings"
)

// A paste of more than pasteLines lines or pasteBytes bytes is kept
// aside as an attachment: the input shows a short placeholder for it, so
// a pasted log or file does not fill the screen while the message around
// it is written, and the whole text goes with the message when it is
// sent.
const (
	pasteLines = 8
	pasteBytes = 800
)

// pastes are a chat's attachments by number; they live as long as the
// chat, so a message that waits behind a running turn, or one recalled
// from the history of this chat, still carries its text.
type pastes struct {
	texts []string
	tags  []string
}

// big reports whether s is a paste to keep aside.
func big(s string) bool {
	return len(s) > pasteBytes || strings.Count(s, "\n") >= pasteLines
}

// add keeps s and returns its placeholder.
func (p *pastes) add(s string) string {
	s = strings.TrimRight(s, "\r\n")
	lines := strings.Count(s, "\n") + 1
	tag := fmt.Sprintf("[pasted text %d: %d lines, %d bytes]", len(p.texts)+1, lines, len(s))
	p.texts = append(p.texts, s)
	p.tags = append(p.tags, tag)
	return tag
}

// expand replaces each placeholder in line with the text it stands for,
// fenced so its lines read as one block.
func (p *pastes) expand(line string) string {
	for i, tag := range p.tags {
		if strings.Contains(line, tag) {
			line = strings.ReplaceAll(line, tag, "\n```\n"+p.texts[i]+"\n```\n")
		}
	}
	return strings.TrimSpace(line)
}
