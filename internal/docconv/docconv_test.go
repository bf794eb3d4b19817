package docconv

import (
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/docconv/pdftest"
)

// TestPDFPages: each page's text comes back in its own element, with the
// Info title; broken and truncated files are errors, never panics.
func TestPDFPages(t *testing.T) {
	title, pages, err := PDFPages(pdftest.Build("Handbook", "Page one talks (about) onboarding", "Page two covers payroll"))
	if err != nil {
		t.Fatal(err)
	}
	if title != "Handbook" || len(pages) != 2 || !strings.Contains(pages[0], "onboarding") || !strings.Contains(pages[1], "payroll") {
		t.Fatalf("title %q, pages %q", title, pages)
	}
	good := pdftest.Build("x", "text")
	for name, body := range map[string][]byte{
		"not a PDF": []byte("hello"),
		"truncated": good[:len(good)/2],
		"empty":     nil,
	} {
		if _, _, err := PDFPages(body); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, _, err := PDFText(body); err == nil {
			t.Errorf("%s: PDFText gave no error", name)
		}
	}
}

// TestHTMLToMarkdown: a page without a host (a local file) converts, its
// title becomes the first heading and its navigation is dropped.
func TestHTMLToMarkdown(t *testing.T) {
	page := `<html><head><title>Release notes</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Release notes</h1><h2>Upgrading</h2><p>` + strings.Repeat("Run the migration before you restart the service. ", 20) + `</p></article></body></html>`
	title, text, err := HTMLToMarkdown([]byte(page), "", &url.URL{Path: "/docs/notes.html"})
	if err != nil {
		t.Fatal(err)
	}
	if title != "Release notes" || !strings.HasPrefix(text, "# Release notes") || !strings.Contains(text, "## Upgrading") {
		t.Errorf("title %q, text:\n%s", title, text)
	}
}
