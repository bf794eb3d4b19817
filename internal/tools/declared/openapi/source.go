package openapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// MaxDocumentBytes bounds an OpenAPI document read from a file or URL.
const MaxDocumentBytes = 16 << 20

// Read reads a document from a file or an http(s) URL, at most
// MaxDocumentBytes of it. A URL is fetched once, for at most 30 seconds;
// the person importing chose it, so it is not held to the URL guard that
// model-chosen URLs are.
func Read(ctx context.Context, src string) ([]byte, error) {
	if !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
		fh, err := os.Open(src)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		return io.ReadAll(io.LimitReader(fh, MaxDocumentBytes))
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %s", src, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes))
}

// FileStem names the tools file of an import after the prefix, else the
// API's title: lower-case letters and digits joined by dashes, "openapi"
// when neither has any.
func FileStem(prefix, title string) string {
	for _, s := range []string{prefix, title} {
		if stem := stem(s); stem != "" {
			return stem
		}
	}
	return "openapi"
}

// stem keeps the letters a-z and digits of s, lower-cased, with one dash
// for each run of anything else, and no dash at either end.
func stem(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
