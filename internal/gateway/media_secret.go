package gateway

import (
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// secretChunk and secretOverlap are how a file is scanned for secrets: in
// pieces that overlap by more than any key's length, so a key across two
// pieces is still whole in one.
const (
	secretChunk   = 1 << 20
	secretOverlap = 16 << 10
)

// secretIn returns the kind of the first secret redact recognizes in r
// ("private_key"), or "". Without one, r is read to its end.
func secretIn(r io.Reader) string {
	buf := make([]byte, secretChunk+secretOverlap)
	kept := 0
	for {
		n, err := io.ReadFull(r, buf[kept:])
		text := string(buf[:kept+n])
		if red := redact.Secrets(text); red != text {
			kind := "a key or token"
			if i := strings.Index(red, "[REDACTED:"); i >= 0 {
				if j := strings.IndexByte(red[i:], ']'); j > 0 {
					kind = red[i+len("[REDACTED:") : i+j]
				}
			}
			return kind
		}
		if err != nil {
			return ""
		}
		kept = copy(buf, buf[kept+n-secretOverlap:kept+n])
	}
}
