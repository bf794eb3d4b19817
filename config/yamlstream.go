package config

import (
	"bytes"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
)

// YAML text is read with goccy/go-yaml's lexer and parser, whose syntax
// tree keeps every token's position. The parser is told to allow repeated
// keys, since a repeated key in config.yaml is a warning (the later one
// wins), not a reason to refuse the file. Comments are taken from the
// token stream by attachComments, and the tree is converted to yamlNodes
// (see yamlparse.go).

// yamlStream is what parseStream found in a text: the first document, and
// whether a second one with content follows (and where it starts).
type yamlStream struct {
	doc      *yamlNode // nil when the text holds no document
	nextLine int       // line of a second document that has content; 0 if none
}

// parseStream parses data. A syntax error in a later document does not
// stop the first one from being read, as it never has: the first
// document is then parsed on its own.
func parseStream(data []byte, file string) (yamlStream, error) {
	if err := checkText(data, file); err != nil {
		return yamlStream{}, err
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a byte order mark is not content
	s, err := parseAll(data, file)
	if err == nil {
		return s, nil
	}
	if cut := secondDocumentStart(data); cut > 0 && errorLine(err) >= lineOf(data, cut) {
		if first, ferr := parseAll(data[:cut], file); ferr == nil {
			return first, nil
		}
	}
	return yamlStream{}, err
}

// parseAll parses every document of data.
func parseAll(data []byte, file string) (yamlStream, error) {
	tokens := lexer.Tokenize(string(data))
	f, err := parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		return yamlStream{}, syntaxError(file, data, err)
	}
	var s yamlStream
	docs := f.Docs
	if len(docs) == 0 {
		return s, nil
	}
	c := newConverter(file, data, tokens)
	s.doc = c.document(docs[0])
	if c.err != nil {
		return yamlStream{}, c.err
	}
	if len(docs) > 1 && docs[1].Body != nil {
		s.nextLine = docs[1].Body.GetToken().Position.Line
		if docs[1].Start != nil {
			s.nextLine = docs[1].Start.Position.Line
		}
	}
	c.attachComments(s.doc, data, tokens, endOfFirstDocument(docs))
	return s, nil
}

// endOfFirstDocument is the line where the second document starts, or a
// line past any file when there is none: comments from there on belong
// to the later documents. Comments after a closing "..." stay with the
// first, so that rewriting the file does not lose them.
func endOfFirstDocument(docs []*ast.DocumentNode) int {
	if len(docs) > 1 {
		if d := docs[1]; d.Start != nil {
			return d.Start.Position.Line
		} else if d.Body != nil {
			return d.Body.GetToken().Position.Line
		}
	}
	return int(^uint(0) >> 1)
}
