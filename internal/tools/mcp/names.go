package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// maxToolName is the longest function name the model APIs accept.
const maxToolName = 64

// ToolName is the name hermes registers a server's tool under:
// mcp__<server>__<tool>, with every character outside [a-zA-Z0-9_-]
// replaced by '_'. A name longer than 64 characters is cut and ends in a
// hash of the full name, so it stays deterministic and two long names
// that share a prefix do not collide.
func ToolName(server, tool string) string {
	full := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	if len(full) <= maxToolName {
		return full
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return full[:maxToolName-len(suffix)] + suffix
}

// Toolset is the toolset a server's tools belong to, so users can enable
// or disable one server's tools together.
func Toolset(server string) string {
	return "mcp-" + sanitize(server)
}

// sanitize replaces every character a tool name may not hold with '_'.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// wanted applies a server's include and exclude lists to one of its
// tools, by the server's own name for it.
func wanted(cfg ServerConfig, tool string) bool {
	if len(cfg.Include) > 0 && !slices.Contains(cfg.Include, tool) {
		return false
	}
	return !slices.Contains(cfg.Exclude, tool)
}
