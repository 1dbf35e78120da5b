package erpfake

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A minimal PDF 1.4 writer, enough for the documents the fake builds: text
// lines in the standard Type 1 font Helvetica (every reader has it, so
// nothing is embedded), one content stream per A4 page, uncompressed, and a
// cross-reference table whose offsets are counted as the file is written.

// pdfLinesPerPage is how many text lines one A4 page holds at 14 points.
const pdfLinesPerPage = 52

// writePDF returns a PDF of the given lines, title in its Info dictionary.
func writePDF(title string, lines []string) []byte {
	pages := (len(lines) + pdfLinesPerPage - 1) / pdfLinesPerPage
	if pages == 0 {
		pages = 1
	}
	var b bytes.Buffer
	var offsets []int // offsets[i] is where object i+1 starts
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n") // a binary comment: the file is binary to transfer tools
	// Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page and its
	// content stream for each page.
	const firstPage = 5
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", firstPage+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Title " + pdfString(title) + " /Producer (apitwin erpfake) >>")
	for p := 0; p < pages; p++ {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", firstPage+2*p+1))
		var s strings.Builder
		s.WriteString("BT\n/F1 10 Tf\n14 TL\n50 800 Td\n")
		for _, l := range lines[p*pdfLinesPerPage : min(len(lines), (p+1)*pdfLinesPerPage)] {
			s.WriteString(pdfString(l) + " Tj T*\n")
		}
		s.WriteString("ET")
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", s.Len(), s.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off) // 20 bytes each, as the format requires
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// pdfString is s as a PDF literal string in WinAnsi (Latin-1 for the
// letters it shares): (, ) and \ escaped, control characters as spaces,
// and characters the encoding lacks as "?".
func pdfString(s string) string {
	var b strings.Builder
	b.WriteByte('(')
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteByte(' ')
		case r < 0x80:
			b.WriteByte(byte(r))
		case r <= 0xff && r != utf8.RuneError:
			fmt.Fprintf(&b, "\\%03o", r)
		default:
			b.WriteByte('?')
		}
	}
	b.WriteByte(')')
	return b.String()
}
