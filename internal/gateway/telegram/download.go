package telegram

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

func newGet(ctx context.Context, u string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
}

// limitedBody fails a download that runs past MaxDownload instead of
// cutting it short silently.
type limitedBody struct {
	r io.Reader
	c io.Closer
	n int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > MaxDownload {
		return n, fmt.Errorf("telegram: the download ran past %d bytes (20 MB), the Bot API's limit", MaxDownload)
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.c.Close() }

// hostOf returns the host of a URL, for logs that must not carry its path
// or query (a webhook URL may hold a secret).
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "?"
	}
	return p.Host
}
