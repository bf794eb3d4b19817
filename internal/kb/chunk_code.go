package kb

import (
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// declPrefixes lists how a line at column 0 that starts a top-level
// declaration begins in the language of a file extension; nil for an
// extension that is not code. A line heuristic, not a parser: it needs
// no grammar per language and errs only by cutting a chunk somewhere
// less tidy, never by losing text.
func declPrefixes(ext string) []string {
	switch strings.ToLower(ext) {
	case ".go":
		return []string{"func ", "type ", "var ", "const ", "import "}
	case ".py":
		return []string{"def ", "async def ", "class "}
	case ".js", ".mjs", ".ts", ".tsx", ".jsx", ".php", ".lua":
		return []string{"function ", "async function ", "class ", "export ", "const ", "let ", "var ", "interface ", "type "}
	case ".rs", ".swift":
		return []string{"fn ", "pub ", "struct ", "enum ", "impl ", "trait ", "mod ", "async fn ", "func ", "extension ", "protocol "}
	case ".java", ".kt", ".scala", ".cs":
		return []string{"public ", "private ", "protected ", "class ", "interface ", "enum ", "abstract ", "final ", "record ", "fun ", "object "}
	case ".c", ".h", ".cc", ".cpp", ".hpp":
		return []string{"struct ", "typedef ", "static ", "#define ", "void ", "int ", "char ", "unsigned ", "enum ", "class ", "namespace ", "template"}
	case ".rb":
		return []string{"def ", "class ", "module "}
	case ".sh", ".bash":
		return []string{"function "}
	case ".sql":
		return []string{"CREATE ", "create ", "ALTER ", "alter ", "INSERT ", "insert ", "SELECT ", "select "}
	}
	return nil
}

// ChunkCode cuts source code at its top-level declarations, found by
// the line heuristic of declPrefixes for the language of name's
// extension; consecutive small declarations share a chunk up to the
// target, and each chunk's heading is the first line of the declaration
// that opens it. Comments, decorators ("@cached") and attributes
// ("#[test]") directly above a declaration go with it.
func ChunkCode(name, text string, o ChunkOptions) []Chunk {
	prefixes := declPrefixes(filepath.Ext(name))
	lines := splitLines(text)
	var decls []section
	cur := section{first: 1}
	for i, line := range lines {
		if i > 0 && startsDecl(line, prefixes) {
			// Leading comments, decorators and attributes belong to
			// the declaration below them.
			j := len(cur.lines)
			for j > 0 && leads(cur.lines[j-1]) {
				j--
			}
			next := section{heading: strings.TrimSpace(line), first: cur.first + j}
			next.lines = append(next.lines, cur.lines[j:]...)
			cur.lines = cur.lines[:j]
			if hasText(cur.lines) {
				decls = append(decls, cur)
			}
			cur = next
		} else if i == 0 && startsDecl(line, prefixes) {
			cur.heading = strings.TrimSpace(line)
		}
		cur.lines = append(cur.lines, line)
	}
	if hasText(cur.lines) {
		decls = append(decls, cur)
	}
	return packAll(mergeSmall(decls, o.withDefaults().Target), o)
}

// mergeSmall joins runs of adjacent declarations whose total stays under
// target into one section headed by the first.
func mergeSmall(decls []section, target int) []section {
	var out []section
	size := 0
	for _, d := range decls {
		n := 0
		for _, l := range d.lines {
			n += llm.EstimateText(l) + 1
		}
		if len(out) > 0 && size+n <= target {
			last := &out[len(out)-1]
			last.lines = append(last.lines, d.lines...)
			size += n
			continue
		}
		out = append(out, d)
		size = n
	}
	return out
}

// startsDecl reports whether line, at column 0, begins with one of
// prefixes.
func startsDecl(line string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// leads reports whether line is one that leads a declaration: a
// whole-line comment in the common syntaxes ("//", "#", "--", "/*",
// " *", ";"), a decorator or annotation ("@name") or an attribute
// ("#[derive]").
func leads(line string) bool {
	t := strings.TrimSpace(line)
	for _, p := range []string{"//", "#", "--", "/*", "*", ";", "@"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
