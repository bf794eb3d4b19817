package llm

import (
	"slices"
	"sync"
)

// maxToolEncodings bounds ToolEncodings: one entry per wire format and
// tool selection in use, of which a process has a handful.
const maxToolEncodings = 8

// ToolEncodings shares the wire encoding of tool lists among the
// WireCaches of many conversations. Every new session of a process
// offers the same tools, and encoding some forty JSON schemas costs more
// than the rest of a short turn's request body: an API server that gets
// a stateless request per conversation would otherwise encode them for
// each. A list is reused only while it is equal, tool by tool, to the
// one encoded, so nothing stale is sent.
//
// The zero ToolEncodings is ready; it is safe for concurrent use.
type ToolEncodings struct {
	mu      sync.Mutex
	entries []toolEncoding // the most recently used first
}

// toolEncoding is one tool list encoded in one format.
type toolEncoding struct {
	format string
	tools  []ToolSpec
	enc    []byte
}

// get returns the encoding of tools in format, from encode when no entry
// holds them. encode runs outside the lock, so two conversations that
// miss at once both encode, and one entry is kept.
func (s *ToolEncodings) get(format string, tools []ToolSpec, encode func([]ToolSpec) ([]byte, error)) ([]byte, error) {
	s.mu.Lock()
	for i, e := range s.entries {
		if e.format == format && slices.EqualFunc(tools, e.tools, sameTool) {
			copy(s.entries[1:i+1], s.entries[:i])
			s.entries[0] = e
			s.mu.Unlock()
			return e.enc, nil
		}
	}
	s.mu.Unlock()
	b, err := encode(tools)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = slices.Insert(s.entries, 0, toolEncoding{format: format, tools: slices.Clone(tools), enc: b})
	if len(s.entries) > maxToolEncodings {
		s.entries = s.entries[:maxToolEncodings]
	}
	return b, nil
}
