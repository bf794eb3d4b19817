// Package pdftest builds small valid PDFs for tests of code that reads
// them, so no test needs a binary fixture checked in.
package pdftest

import (
	"bytes"
	"fmt"
	"strings"
)

// Build returns a PDF with one page per element of pages, each showing
// its text in one line of Helvetica (ASCII only: the text goes into a PDF
// string as is, with parentheses and backslashes escaped), and title as
// its Info title. The cross-reference table is exact, so strict readers
// accept it.
func Build(title string, pages ...string) []byte {
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	n := len(pages)
	// Objects: 1 catalog, 2 pages, 3 font, 4 info, then a page and its
	// contents for each page.
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Title (%s) >>", esc.Replace(title)),
	}
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 700 Td (%s) Tj ET", esc.Replace(text))
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
