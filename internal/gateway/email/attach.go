package email

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
)

// maxAttachBytes caps the files one reply carries: most mail servers
// refuse messages over 25 MB, and base64 adds a third.
const maxAttachBytes = 18 << 20

// readFiles reads the files a reply attaches, refusing more than mail
// carries.
func readFiles(paths []string) ([]attachment, error) {
	var out []attachment
	total := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("email: attaching %s: %w", filepath.Base(p), err)
		}
		total += len(data)
		if total > maxAttachBytes {
			return nil, fmt.Errorf("email: the attachments come to more than %d MB, more than mail servers take; send a link or a smaller file", maxAttachBytes>>20)
		}
		t, _, _ := mime.ParseMediaType(mime.TypeByExtension(filepath.Ext(p)))
		if t == "" {
			t = "application/octet-stream"
		}
		out = append(out, attachment{name: filepath.Base(p), mime: t, data: data})
	}
	return out, nil
}

// writeMixed writes a multipart/mixed body: the text, then each file as
// a base64 attachment.
func writeMixed(b *bytes.Buffer, text string, files []attachment) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	b.WriteString("Content-Type: " + mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": w.Boundary()}) + "\r\n\r\n")
	part, _ := w.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"text/plain; charset=utf-8"},
		"Content-Transfer-Encoding": {"quoted-printable"},
	})
	_, _ = part.Write(qpText(text))
	for _, f := range files {
		hdr := textproto.MIMEHeader{}
		hdr.Set("Content-Type", mime.FormatMediaType(f.mime, map[string]string{"name": f.name}))
		hdr.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.name}))
		hdr.Set("Content-Transfer-Encoding", "base64")
		part, _ := w.CreatePart(hdr)
		enc := base64.StdEncoding.EncodeToString(f.data)
		for len(enc) > 76 {
			_, _ = part.Write([]byte(enc[:76] + "\r\n"))
			enc = enc[76:]
		}
		_, _ = part.Write([]byte(enc + "\r\n"))
	}
	_ = w.Close()
	b.Write(body.Bytes())
}
