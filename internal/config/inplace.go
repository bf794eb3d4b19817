package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Text edits keep a hand-written config.yaml byte for byte outside the
// edited value: spacing, blank lines, comments and quoting stay as the
// person wrote them. They are attempted only in the plain cases and only
// kept when the result reads back as the same data as the tree edit.

// textEdit sets val at segs below root by editing data's text: replacing a
// value written on one line, or inserting a missing key after the last
// entry of the deepest block mapping that exists.
func textEdit(data []byte, root *yaml.Node, segs []string, val *yaml.Node) ([]byte, bool) {
	if old := locate(root, configType, segs); old != nil {
		if val.Kind != yaml.ScalarNode {
			return nil, false
		}
		return replaceInPlace(data, old, val)
	}
	parent, t, k := root, configType, 0
	for ; k < len(segs); k++ {
		if parent.Kind != yaml.MappingNode || parent.Style&yaml.FlowStyle != 0 {
			return nil, false
		}
		i := lastKey(parent, segs[k])
		if i < 0 {
			break
		}
		parent, t = parent.Content[i+1], childType(t, segs[k])
	}
	if k == len(segs) || t == nil || parent.Kind != yaml.MappingNode || parent.Style&yaml.FlowStyle != 0 || len(parent.Content) == 0 {
		return nil, false
	}
	sub := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	budget := maxNodes
	slot, err := ensure(&sub, t, segs[k:], &budget)
	if err != nil {
		return nil, false
	}
	*slot = val
	snippet, err := encodeNode(sub, detectIndent(data))
	if err != nil {
		return nil, false
	}
	after := endLine(parent)
	col := parent.Content[0].Column - 1
	if after < 1 || col < 0 {
		return nil, false
	}
	at := lineStart(data, after+1)
	if at < 0 {
		return nil, false
	}
	var ins []byte
	if at == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		ins = append(ins, '\n')
	}
	pad := strings.Repeat(" ", col)
	for _, line := range strings.SplitAfter(string(snippet), "\n") {
		if line != "" {
			ins = append(ins, pad+line...)
		}
	}
	out := make([]byte, 0, len(data)+len(ins))
	out = append(out, data[:at]...)
	out = append(out, ins...)
	out = append(out, data[at:]...)
	return out, true
}

// endLine is the last line a block node's text occupies, or -1 when that
// cannot be told from the node alone (block scalars, flow collections).
func endLine(n *yaml.Node) int {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			return -1
		}
		return n.Line
	case yaml.AliasNode:
		return n.Line
	case yaml.MappingNode, yaml.SequenceNode:
		if n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0 {
			return -1
		}
		last := n.Content[len(n.Content)-1]
		if n.Kind == yaml.MappingNode && last.Kind == yaml.ScalarNode && last.Tag == "!!null" && last.Value == "" {
			return n.Content[len(n.Content)-2].Line
		}
		return endLine(last)
	}
	return -1
}

// lineStart is the byte offset where line (1-based) begins: len(data) for
// the line after the last, -1 beyond that.
func lineStart(data []byte, line int) int {
	at := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[at:], '\n')
		if i < 0 {
			if l == line-1 {
				return len(data)
			}
			return -1
		}
		at += i + 1
	}
	return at
}

// replaceInPlace swaps the text of the one-line scalar old for val within
// data, leaving every other byte as it was. It declines (ok false) whenever
// it cannot be sure of the span: block scalars, anchors, explicit tags, an
// empty value, or a new value that would need more than one line.
func replaceInPlace(data []byte, old, val *yaml.Node) ([]byte, bool) {
	if old.Kind != yaml.ScalarNode || old.Anchor != "" || old.Line < 1 || old.Column < 1 ||
		old.Style&(yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) != 0 || old.Value == "" {
		return nil, false
	}
	start := lineStart(data, old.Line)
	if start < 0 || start == len(data) {
		return nil, false
	}
	end := len(data)
	if i := bytes.IndexByte(data[start:], '\n'); i >= 0 {
		end = start + i
	}
	line := data[start:end]
	off := 0
	for c := 1; c < old.Column; c++ {
		if off >= len(line) {
			return nil, false
		}
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	rest := line[off:]
	var n int
	switch {
	case old.Style&yaml.DoubleQuotedStyle != 0:
		n = quotedLen(rest, '"')
	case old.Style&yaml.SingleQuotedStyle != 0:
		n = quotedLen(rest, '\'')
	case bytes.HasPrefix(rest, []byte(old.Value)):
		n = len(old.Value)
	}
	if n <= 0 {
		return nil, false
	}
	nv := *val
	if nv.Tag == "!!str" {
		nv.Style = old.Style & (yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	}
	text, err := yaml.Marshal(&nv)
	if err != nil {
		return nil, false
	}
	repl := strings.TrimSuffix(string(text), "\n")
	if strings.Contains(repl, "\n") || strings.HasPrefix(repl, "|") || strings.HasPrefix(repl, ">") {
		return nil, false
	}
	at := start + off
	out := make([]byte, 0, len(data)+len(repl))
	out = append(out, data[:at]...)
	out = append(out, repl...)
	out = append(out, data[at+n:]...)
	return out, true
}

// quotedLen is the length of the quoted scalar opening s, closing quote
// included, or -1 if it does not close on this line.
func quotedLen(s []byte, q byte) int {
	if len(s) == 0 || s[0] != q {
		return -1
	}
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return -1
}

// writeFileAtomic replaces path with data: a temporary file in the same
// directory is written, synced and renamed over it, so a crash leaves the
// old file or the new one, never half of one. A symlinked file is written
// through its link.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			err = fmt.Errorf("config: writing %s: %w", path, err)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
