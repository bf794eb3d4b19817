package gateway

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/llm"
)

// maxInlineImage is the largest image shown to the model in the message
// itself: Anthropic refuses images over 5 MB, and a bigger one would ride
// along, base64 and a third larger, in every later request of the
// session. A bigger image is given to the model as its saved path.
const maxInlineImage = 5 << 20

// maxNameBytes bounds a saved file's name, extension kept, well inside
// every filesystem's 255.
const maxNameBytes = 100

// tooBigError is a file over the inbound cap: by its announced size, or,
// when size is 0, found so by reading past the cap.
type tooBigError struct{ size, max int64 }

func (e *tooBigError) Error() string {
	if e.size == 0 {
		return fmt.Sprintf("it is larger than the limit of %s (gateway.max_inbound_media_bytes)", human(e.max))
	}
	return fmt.Sprintf("it is %s, over the limit of %s (gateway.max_inbound_media_bytes)", human(e.size), human(e.max))
}

// saved is a file received from a chat and kept.
type saved struct {
	path string
	size int64
	// sniffed is the type read from the file's first bytes, which the
	// sender cannot declare falsely: only a file whose bytes are an
	// image goes to the model as one, because a provider refuses a
	// request with a broken image, and every later one of the session
	// with it. mime is the type shown: the declared one where the bytes
	// say only "binary" or "text".
	sniffed, mime string
}

// receive downloads m into dir under a name of its own, reading at most
// max bytes whatever the platform announced; a file over max is removed
// and reported as a *tooBigError.
func receive(ctx context.Context, m Media, dir string, max int64) (saved, error) {
	if m.Size > max {
		return saved{}, &tooBigError{size: m.Size, max: max}
	}
	if m.Fetch == nil {
		return saved{}, errors.New("the platform gave no way to download it")
	}
	body, err := m.Fetch(ctx)
	if err != nil {
		return saved{}, err
	}
	defer body.Close()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return saved{}, err
	}
	f, err := createUnique(dir, safeName(m.Name, m.Kind))
	if err != nil {
		return saved{}, err
	}
	n, err := io.Copy(f, io.LimitReader(body, max+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > max {
		err = &tooBigError{max: max}
	}
	if err != nil {
		os.Remove(f.Name())
		return saved{}, err
	}
	s := saved{path: f.Name(), size: n, sniffed: sniff(f.Name())}
	s.mime = s.sniffed
	if (s.sniffed == "application/octet-stream" || s.sniffed == "text/plain") && m.MIME != "" && !strings.HasPrefix(m.MIME, "image/") {
		s.mime = m.MIME
	}
	return s, nil
}

// createUnique creates name in dir, or name-2, name-3 ... before the
// extension when it is taken: a file received earlier is never
// overwritten.
func createUnique(dir, name string) (*os.File, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		f, err := os.OpenFile(filepath.Join(dir, candidate), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("a thousand files named like %q are there already", name)
}

// safeName makes the name a sender gave a file into one that stays in
// its folder and shows as it is: its last path element only (either
// separator), without control, invisible or direction-changing
// characters (which make "photo\u202egpj.exe" look like a .jpg) or
// characters Windows reserves, without leading dots (no
// hidden files, no "..") and at most maxNameBytes long, extension kept.
// A name with nothing left is named after the kind ("photo").
func safeName(name, kind string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Cf, r), strings.ContainsRune(`:*?"<>|`, r):
			return '_'
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, name)
	name = strings.TrimRight(strings.TrimLeft(name, ". "), ". ")
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		stem := strings.TrimSuffix(name, ext)
		cut := maxNameBytes - len(ext)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		name = strings.TrimRight(stem[:cut], ". ") + ext
	}
	if name == "" && kind != "" {
		name = safeName(kind, "")
	}
	if name == "" {
		name = "file"
	}
	return name
}

// sniff returns the type of the file's content, without parameters.
func sniff(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	got, _, _ := strings.Cut(http.DetectContentType(head[:n]), ";")
	return got
}

// seeable reports whether a type is one every vision model takes.
func seeable(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// parts is how a saved file reaches the model: an image it can see as
// the image itself, after a line with its path (so later turns can name
// it); anything else as a line naming the path, size and type, which the
// file tools can open.
//
// The image goes into the stored message as a data: URL, once, rather
// than as a reference re-read for every request: the request carries the
// bytes either way, so a reference saves nothing on the wire, while it
// would make the conversation depend on a file the agent can change or
// delete (the model would be shown something else than the person sent,
// or every request of the session would fail) and would have every
// provider adapter read files. The store keeps the parts apart from the
// text it indexes; compression summarizes old turns, images and all; and
// an image over maxInlineImage goes by its path instead.
func (s saved) parts(kind string, images bool) []llm.Part {
	about := fmt.Sprintf("%s, %s", human(s.size), s.mime)
	if seeable(s.sniffed) && images && s.size <= maxInlineImage {
		data, err := os.ReadFile(s.path)
		if err == nil {
			return []llm.Part{
				llm.TextPart(fmt.Sprintf("[the user sent a %s, saved as %s (%s); it follows]", kind, s.path, about)),
				{Type: llm.PartImage, ImageURL: "data:" + s.sniffed + ";base64," + base64.StdEncoding.EncodeToString(data), MIMEType: s.sniffed},
			}
		}
	}
	if seeable(s.sniffed) {
		return []llm.Part{llm.TextPart(fmt.Sprintf("[the user sent a %s, saved as %s (%s); to see it, use vision_analyze on that path]", kind, s.path, about))}
	}
	return []llm.Part{llm.TextPart(fmt.Sprintf("[the user sent a %s, saved as %s (%s); open it with your file tools]", kind, s.path, about))}
}

// human writes a byte count for people: 512 bytes, 1.5 KB, 20 MB.
func human(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return trimZero(float64(n)/(1<<10)) + " KB"
	case n < 1<<30:
		return trimZero(float64(n)/(1<<20)) + " MB"
	}
	return trimZero(float64(n)/(1<<30)) + " GB"
}

func trimZero(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
}
