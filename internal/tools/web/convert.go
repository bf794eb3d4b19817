package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/docconv"
)

// convert turns a fetched body into a title and readable text by its media
// type. A type it cannot read is an error naming the type, so the model
// does not retry the same URL hoping for a different answer.
func convert(f *fetched) (title, text string, err error) {
	switch mt := f.mediaType; {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return docconv.HTMLToMarkdown(f.body, f.header, f.url)
	case mt == "application/pdf":
		if f.cut {
			return "", "", fmt.Errorf("the PDF is larger than %d MB, the most web_extract reads", len(f.body)>>20)
		}
		return pdfText(f)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return fileTitle(f.url), prettyJSON(f.body), nil
	case strings.HasPrefix(mt, "text/"):
		return fileTitle(f.url), docconv.DecodeText(f.body, f.header), nil
	default:
		return "", "", fmt.Errorf("cannot extract %s: web_extract reads HTML, PDF, plain text, Markdown and JSON", mt)
	}
}

// prettyJSON re-indents JSON one space per level: readable for the model
// without the width of tabs. Invalid JSON is returned as sent.
func prettyJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", " "); err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return out.String()
}

// pdfText extracts a PDF's text with its Info title, or the file name
// when it has none.
func pdfText(f *fetched) (title, text string, err error) {
	title, text, err = docconv.PDFText(f.body)
	if err == nil && title == "" {
		title = fileTitle(f.url)
	}
	return title, text, err
}

// fileTitle names a document without a title of its own by the last path
// element of its URL.
func fileTitle(u *url.URL) string {
	if b := path.Base(u.Path); b != "/" && b != "." {
		return b
	}
	return u.Host
}

// capText cuts s to limit characters and appends the marker that tells the
// model the page went on and what to do about it. bodyCut says the body
// was already cut at the byte cap, so the total is a lower bound.
func capText(s string, limit int, bodyCut bool) (string, bool) {
	n := utf8.RuneCountInString(s)
	if n <= limit && !bodyCut {
		return s, false
	}
	total := fmt.Sprint(n)
	if bodyCut {
		total = "more than " + total
	}
	if n > limit {
		i := 0
		for range limit {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
		}
		s = s[:i]
	}
	return s + fmt.Sprintf("\n\n[… cut at %d of %s characters; ask for a specific section or a narrower page]", min(n, limit), total), true
}
