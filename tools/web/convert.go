package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/ledongthuc/pdf"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/hermes-go/hermes/internal/lazy"
)

// convert turns a fetched body into a title and readable text by its media
// type. A type it cannot read is an error naming the type, so the model
// does not retry the same URL hoping for a different answer.
func convert(f *fetched) (title, text string, err error) {
	switch mt := f.mediaType; {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return htmlToMarkdown(f)
	case mt == "application/pdf":
		if f.cut {
			return "", "", fmt.Errorf("the PDF is larger than %d MB, the most web_extract reads", len(f.body)>>20)
		}
		return pdfText(f)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return fileTitle(f.url), prettyJSON(f.body), nil
	case strings.HasPrefix(mt, "text/"):
		return fileTitle(f.url), decodeText(f), nil
	default:
		return "", "", fmt.Errorf("cannot extract %s: web_extract reads HTML, PDF, plain text, Markdown and JSON", mt)
	}
}

// htmlToMarkdown keeps the page's main content, as Readability picks it,
// and renders it as Markdown under a "# Title" heading. Pages too small
// or odd for Readability fall back to their whole body.
func htmlToMarkdown(f *fetched) (string, string, error) {
	doc, err := parseHTML(f)
	if err != nil {
		return "", "", fmt.Errorf("cannot parse the HTML: %v", err)
	}
	parser := readability.NewParser()
	art, err := parser.ParseAndMutate(doc, f.url)
	node, title := art.Node, art.Title()
	if err != nil || node == nil {
		// ParseAndMutate has altered doc; start again from the bytes.
		if doc, err = parseHTML(f); err != nil {
			return "", "", fmt.Errorf("cannot parse the HTML: %v", err)
		}
		node = doc
	}
	md, err := htmltomarkdown.ConvertNode(node, converter.WithDomain(f.url.Scheme+"://"+f.url.Host))
	if err != nil {
		return "", "", fmt.Errorf("cannot convert the page to Markdown: %v", err)
	}
	body := tidyMarkdown(string(md))
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", body, nil
	}
	heading := "# " + title
	if first, _, _ := strings.Cut(body, "\n"); strings.TrimSpace(first) == heading {
		return title, body, nil
	}
	return title, heading + "\n\n" + body, nil
}

// parseHTML decodes the body by its declared or sniffed charset (pages in
// GBK or Shift_JIS are common) and parses it.
func parseHTML(f *fetched) (*html.Node, error) {
	r, err := charset.NewReader(bytes.NewReader(f.body), f.header)
	if err != nil {
		r = bytes.NewReader(f.body)
	}
	return html.Parse(r)
}

// decodeText returns a text body as UTF-8 by its declared charset.
func decodeText(f *fetched) string {
	if r, err := charset.NewReader(bytes.NewReader(f.body), f.header); err == nil {
		if b, err := io.ReadAll(r); err == nil {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
	}
	return strings.ToValidUTF8(string(f.body), "\uFFFD")
}

var blankLines = lazy.Regexp{Expr: `\n{3,}`}

// tidyMarkdown drops runs of blank lines and trailing spaces left where
// removed elements were; they cost characters of the cap and say nothing.
func tidyMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(blankLines.Get().ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
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
// when it has none. The PDF reader panics on some malformed files, which
// must cost only this page.
func pdfText(f *fetched) (title, text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot read the PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(f.body), int64(len(f.body)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return "", "", errors.New("the PDF is encrypted")
		}
		return "", "", fmt.Errorf("cannot read the PDF: %v", err)
	}
	tr, err := r.GetPlainText()
	if err != nil {
		return "", "", fmt.Errorf("cannot read the PDF's text: %v", err)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return "", "", fmt.Errorf("cannot read the PDF's text: %v", err)
	}
	text = tidyMarkdown(strings.ToValidUTF8(string(b), ""))
	if text == "" {
		return "", "", errors.New("the PDF has no extractable text (it may be scanned images)")
	}
	title = strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	if title == "" {
		title = fileTitle(f.url)
	}
	return title, text, nil
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
