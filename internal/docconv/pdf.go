package docconv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"
)

// PDFText extracts a PDF's whole text layer with its Info title (empty
// when it has none). The PDF reader panics on some malformed files,
// which must cost only this document, so a panic becomes an error.
func PDFText(body []byte) (title, text string, err error) {
	defer recoverPDF(&err)
	r, err := openPDF(body)
	if err != nil {
		return "", "", err
	}
	tr, err := r.GetPlainText()
	if err != nil {
		return "", "", fmt.Errorf("cannot read the PDF's text: %v", err)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return "", "", fmt.Errorf("cannot read the PDF's text: %v", err)
	}
	text = Tidy(strings.ToValidUTF8(string(b), ""))
	if text == "" {
		return "", "", errNoText
	}
	return pdfTitle(r), text, nil
}

// PDFPages extracts a PDF's text layer page by page: pages[i] is page
// i+1's text, empty for a page without any. Like PDFText it reports a
// malformed or encrypted file as an error, never a panic.
func PDFPages(body []byte) (title string, pages []string, err error) {
	defer recoverPDF(&err)
	r, err := openPDF(body)
	if err != nil {
		return "", nil, err
	}
	found := false
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		text := ""
		if !p.V.IsNull() {
			s, err := p.GetPlainText(nil)
			if err != nil {
				return "", nil, fmt.Errorf("cannot read the text of page %d: %v", i, err)
			}
			text = Tidy(strings.ToValidUTF8(s, ""))
		}
		found = found || text != ""
		pages = append(pages, text)
	}
	if !found {
		return "", nil, errNoText
	}
	return pdfTitle(r), pages, nil
}

var errNoText = errors.New("the PDF has no extractable text (it may be scanned images)")

// openPDF opens body, naming encryption apart from other failures.
func openPDF(body []byte) (*pdf.Reader, error) {
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return nil, errors.New("the PDF is encrypted")
		}
		return nil, fmt.Errorf("cannot read the PDF: %v", err)
	}
	return r, nil
}

// recoverPDF turns a panic of the PDF reader into *err.
func recoverPDF(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("cannot read the PDF: %v", r)
	}
}

// pdfTitle is the document's Info title, empty when it has none.
func pdfTitle(r *pdf.Reader) string {
	return strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
}
