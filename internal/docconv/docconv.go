// Package docconv turns the documents hermes reads — web pages, PDFs,
// text in any charset — into Markdown or plain text a model can read.
// web_extract and the knowledge base's ingest both use it, so a page
// reads the same whether the agent fetched it or a person ingested it.
package docconv

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/hermes-go/hermes/internal/lazy"
)

// HTMLToMarkdown keeps the page's main content, as Readability picks it,
// and renders it as Markdown under a "# Title" heading. Pages too small
// or odd for Readability fall back to their whole body. contentType is
// the Content-Type as sent (for the charset; may be empty) and u the
// page's address, against which relative links are resolved.
func HTMLToMarkdown(body []byte, contentType string, u *url.URL) (title, text string, err error) {
	doc, err := parseHTML(body, contentType)
	if err != nil {
		return "", "", fmt.Errorf("cannot parse the HTML: %v", err)
	}
	parser := readability.NewParser()
	art, err := parser.ParseAndMutate(doc, u)
	node, title := art.Node, art.Title()
	if err != nil || node == nil {
		// ParseAndMutate has altered doc; start again from the bytes.
		if doc, err = parseHTML(body, contentType); err != nil {
			return "", "", fmt.Errorf("cannot parse the HTML: %v", err)
		}
		node = doc
	}
	var opts []converter.ConvertOptionFunc
	if u.Host != "" {
		opts = append(opts, converter.WithDomain(u.Scheme+"://"+u.Host))
	}
	md, err := htmltomarkdown.ConvertNode(node, opts...)
	if err != nil {
		return "", "", fmt.Errorf("cannot convert the page to Markdown: %v", err)
	}
	text = Tidy(string(md))
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return "", text, nil
	}
	heading := "# " + title
	if first, _, _ := strings.Cut(text, "\n"); strings.TrimSpace(first) == heading {
		return title, text, nil
	}
	return title, heading + "\n\n" + text, nil
}

// parseHTML decodes the body by its declared or sniffed charset (pages in
// GBK or Shift_JIS are common) and parses it.
func parseHTML(body []byte, contentType string) (*html.Node, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		r = bytes.NewReader(body)
	}
	return html.Parse(r)
}

// DecodeText returns a text body as UTF-8 by its declared charset
// (contentType may be empty); bytes that are not valid UTF-8 become
// U+FFFD.
func DecodeText(body []byte, contentType string) string {
	if r, err := charset.NewReader(bytes.NewReader(body), contentType); err == nil {
		if b, err := io.ReadAll(r); err == nil {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}

var blankLines = lazy.Regexp{Expr: `\n{3,}`}

// Tidy drops runs of blank lines and trailing spaces left where removed
// elements were; they cost characters and say nothing.
func Tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(blankLines.Get().ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
