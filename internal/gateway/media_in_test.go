package gateway

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

// pngBytes is the start of a PNG: what sniffing reads.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 100)...)

// fetched is a Media whose download is data, and which counts the bytes
// read from it.
func fetched(name, kind, mime string, announced int64, data []byte, read *int64) Media {
	return Media{Kind: kind, Name: name, MIME: mime, Size: announced, Fetch: func(context.Context) (io.ReadCloser, error) {
		return io.NopCloser(&counting{r: bytes.NewReader(data), n: read}), nil
	}}
}

type counting struct {
	r io.Reader
	n *int64
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n != nil {
		*c.n += int64(n)
	}
	return n, err
}

// The name a sender gives a file cannot lead it out of its folder, hide
// it, or make it unreadable; a name with nothing left is the kind's.
func TestSafeName(t *testing.T) {
	long := strings.Repeat("é", 80) + ".pdf"
	tests := []struct{ in, kind, want string }{
		{"report.pdf", "document", "report.pdf"},
		{"../../.ssh/authorized_keys", "document", "authorized_keys"},
		{`..\..\boot.ini`, "document", "boot.ini"},
		{"/etc/passwd", "document", "passwd"},
		{"..", "document", "document"},
		{".", "photo", "photo"},
		{".env", "document", "env"},
		{"...bashrc", "document", "bashrc"},
		{"", "voice", "voice"},
		{"", "", "file"},
		{"a\x00b\nc\x1b[31m.txt", "document", "a_b_c_[31m.txt"},
		{"what?.txt", "document", "what_.txt"},
		{"trailing. . ", "document", "trailing"},
		{"C:evil.txt", "document", "C_evil.txt"},
		{"invoice\u202Efdp.exe", "document", "invoice_fdp.exe"},
		{"a\u200bb.txt", "document", "a_b.txt"},
	}
	for _, tt := range tests {
		if got := safeName(tt.in, tt.kind); got != tt.want {
			t.Errorf("safeName(%q, %q) = %q, want %q", tt.in, tt.kind, got, tt.want)
		}
	}
	got := safeName(long, "document")
	if len(got) > maxNameBytes || !strings.HasSuffix(got, ".pdf") || !strings.HasPrefix(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("a long name became %q (%d bytes); want at most %d bytes, whole runes, the extension kept", got, len(got), maxNameBytes)
	}
}

// The cap holds on the bytes read, whatever size was announced: a file
// announced over it is not downloaded at all, one that announced less
// (or nothing) is read to one byte past the cap and removed.
func TestReceiveCap(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("x"), 1000)
	for _, announced := range []int64{0, 10, 100} {
		var read int64
		_, err := receive(context.Background(), fetched("big.bin", "document", "", announced, data, &read), dir, 100)
		var big *tooBigError
		if !errors.As(err, &big) || big.max != 100 {
			t.Errorf("announced %d: err = %v, want the cap refused", announced, err)
		}
		if read > 101 {
			t.Errorf("announced %d: %d bytes were read; the cap is 100, so at most 101", announced, read)
		}
	}
	var read int64
	_, err := receive(context.Background(), fetched("big.bin", "document", "", 5000, data, &read), dir, 100)
	if err == nil || read != 0 || !strings.Contains(err.Error(), "4.9 KB, over the limit of 100 bytes (gateway.max_inbound_media_bytes)") {
		t.Errorf("a file announced over the cap: err = %v after reading %d bytes; want it refused unread", err, read)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("refused files left %d entries in the folder", len(left))
	}
	s, err := receive(context.Background(), fetched("ok.bin", "document", "", 0, data[:100], nil), dir, 100)
	if err != nil || s.size != 100 {
		t.Errorf("a file of exactly the cap: %+v, %v", s, err)
	}
}

// Files are kept under their own names in the folder; a name taken gets
// a suffix and the earlier file stays as it was.
func TestReceiveNoOverwrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "files")
	var paths []string
	for _, body := range []string{"first", "second", "third"} {
		s, err := receive(context.Background(), fetched("../notes.txt", "document", "text/plain", 0, []byte(body), nil), dir, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, s.path)
	}
	want := []string{"notes.txt", "notes-2.txt", "notes-3.txt"}
	for i, p := range paths {
		b, _ := os.ReadFile(p)
		if filepath.Dir(p) != dir || filepath.Base(p) != want[i] || string(b) != []string{"first", "second", "third"}[i] {
			t.Errorf("file %d is %s holding %q; want %s in %s", i, p, b, want[i], dir)
		}
	}
	fi, err := os.Stat(paths[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a received file's mode is %v (%v), want 0600", fi.Mode(), err)
	}
}

// An image the model can see goes as the image, of the type its bytes
// say; a model that cannot see, a file whose bytes are not an image
// though it says so, and any other file get a line with the path.
func TestReceivedParts(t *testing.T) {
	dir := t.TempDir()
	photo, err := receive(context.Background(), fetched("photo.jpg", "photo", "image/jpeg", 0, pngBytes, nil), dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	parts := photo.parts("photo", true)
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	if len(parts) != 2 || parts[1].Type != llm.PartImage || parts[1].ImageURL != want || !strings.Contains(parts[0].Text, photo.path) {
		t.Errorf("a photo for a model that sees: %+v", parts)
	}
	parts = photo.parts("photo", false)
	if len(parts) != 1 || parts[0].Type != llm.PartText || !strings.Contains(parts[0].Text, photo.path) || !strings.Contains(parts[0].Text, "vision_analyze") {
		t.Errorf("a photo for a model that cannot see: %+v", parts)
	}
	fake, err := receive(context.Background(), fetched("cat.png", "document", "image/png", 0, []byte("not a picture at all"), nil), dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if parts := fake.parts("document", true); len(parts) != 1 || parts[0].Type != llm.PartText || strings.Contains(parts[0].Text, "image/png") {
		t.Errorf("text calling itself a PNG: %+v; want a line, with the type its bytes have", parts)
	}
	doc, err := receive(context.Background(), fetched("report.csv", "document", "text/csv", 0, []byte("a,b\n1,2\n"), nil), dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	parts = doc.parts("document", true)
	if len(parts) != 1 || !strings.Contains(parts[0].Text, doc.path+" (8 bytes, text/csv)") {
		t.Errorf("a document: %+v", parts)
	}
}

// A download that fails is told as it failed, without a token the
// platform's error may quote.
func TestReasonRedacts(t *testing.T) {
	err := errors.New(`Get "https://api.telegram.org/file/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq/x.jpg": connection reset`)
	got := reason(err)
	if strings.Contains(got, "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq") || !strings.Contains(got, "could not be downloaded") || !strings.Contains(got, "connection reset") {
		t.Errorf("reason = %q", got)
	}
}

// Whatever a sender names a file, the name kept is one plain name in its
// folder: not empty, no separator, not hidden, valid UTF-8 without
// control or invisible characters, and short.
func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"report.pdf", "../../.ssh/id_rsa", `..\x`, ".", "..", "", "\x00", "a\u202eb", strings.Repeat("ж", 200) + ".tar.gz", "\xff\xfe.txt"} {
		f.Add(s, "document")
	}
	f.Fuzz(func(t *testing.T, name, kind string) {
		got := safeName(name, kind)
		if got == "" || strings.ContainsAny(got, `/\`) || strings.HasPrefix(got, ".") || len(got) > maxNameBytes || !utf8.ValidString(got) {
			t.Fatalf("safeName(%q, %q) = %q", name, kind, got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("safeName(%q, %q) = %q keeps %U", name, kind, got, r)
			}
		}
	})
}
