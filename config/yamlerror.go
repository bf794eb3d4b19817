package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// A syntax error is reported as "config.yaml:LINE: invalid YAML: MESSAGE",
// the line being the one the parser stopped at. The parser's wording is
// replaced by the established one for the mistakes people make most (a
// colon inside a value, an unclosed bracket, a tab used for indentation),
// so that the messages people and scripts know stay the same.

// yamlMessages maps the start of the parser's message to the text shown.
var yamlMessages = []struct{ prefix, text string }{
	{"mapping value is not allowed in this context", "mapping values are not allowed in this context"},
	{"sequence end token ']' not found", "did not find expected ',' or ']'"},
	{"could not find flow mapping end token '}'", "did not find expected ',' or '}'"},
	{"found character", "found character that cannot start any token"},
	{"'@' is a reserved character", "found character that cannot start any token"},
	{"'`' is a reserved character", "found character that cannot start any token"},
	{"could not find end character of double-quoted text", "found unexpected end of stream"},
	{"could not find end character of single-quoted text", "found unexpected end of stream"},
	{"found unknown escape character", "found unknown escape character"},
	{"could not find '[' character corresponding to ']'", "did not find expected node content"},
	{"could not find '{' character corresponding to '}'", "did not find expected node content"},
	{"value is not allowed in this context", "did not find expected key"},
	{"non-map value is specified", "did not find expected key"},
}

// parserError is what goccy's parser returns: a message and the token it
// stopped at.
type parserError interface {
	GetToken() *token.Token
	GetMessage() string
}

// yamlSyntaxError is a syntax error with its line, kept apart so that
// parseStream can tell whether it lies in the first document.
type yamlSyntaxError struct {
	file string
	line int
	msg  string
}

func (e *yamlSyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: invalid YAML: %s", e.file, e.line, e.msg)
}

// syntaxError turns the parser's error into a yamlSyntaxError.
func syntaxError(file string, data []byte, err error) error {
	e := &yamlSyntaxError{file: file, line: 1, msg: err.Error()}
	var pe parserError
	if errors.As(err, &pe) {
		e.msg = pe.GetMessage()
		if tk := pe.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line > 0 {
			e.line = tk.Position.Line
		}
	}
	for _, m := range yamlMessages {
		if strings.HasPrefix(e.msg, m.prefix) {
			e.msg = m.text
			break
		}
	}
	if lines := bytes.Count(data, []byte("\n")) + 1; e.line > lines {
		e.line = lines
	}
	return e
}

// errorLine is the line a syntax error names, or 0.
func errorLine(err error) int {
	var se *yamlSyntaxError
	if errors.As(err, &se) {
		return se.line
	}
	return 0
}

// secondDocumentStart is the offset of the line holding the "---" or
// "..." that ends the first document, or 0 when there is none. A "---"
// on the first content line opens the first document rather than ending
// it.
func secondDocumentStart(data []byte) int {
	content := false
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data) - at
		}
		line := data[at : at+end]
		marker := func(m string) bool {
			return bytes.HasPrefix(line, []byte(m)) && (len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')
		}
		switch {
		case marker("..."):
			return at
		case marker("---"):
			if content {
				return at
			}
			content = true
		default:
			if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && t[0] != '%' {
				content = true
			}
		}
		at += end + 1
	}
	return 0
}

// lineOf is the line (from 1) that offset at lies on.
func lineOf(data []byte, at int) int {
	return bytes.Count(data[:at], []byte("\n")) + 1
}

// checkText refuses text YAML does not allow: bytes that are not UTF-8,
// and control characters other than tab and line breaks.
func checkText(data []byte, file string) error {
	for i := 0; i < len(data); {
		r, w := utf8.DecodeRune(data[i:])
		msg := ""
		switch {
		case r == utf8.RuneError && w <= 1:
			need := 0
			switch b := data[i]; {
			case b&0xE0 == 0xC0 && b >= 0xC2:
				need = 2
			case b&0xF0 == 0xE0:
				need = 3
			case b&0xF8 == 0xF0 && b <= 0xF4:
				need = 4
			}
			switch {
			case need == 0:
				msg = "invalid leading UTF-8 octet"
			case i+need > len(data) && !utf8.FullRune(data[i:]):
				msg = "incomplete UTF-8 octet sequence"
			default:
				msg = "invalid trailing UTF-8 octet"
			}
		case !(r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7E || r == 0x85 ||
			r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF):
			msg = "control characters are not allowed"
		}
		if msg != "" {
			return &yamlSyntaxError{file: file, line: lineOf(data, i), msg: msg}
		}
		i += w
	}
	return nil
}
