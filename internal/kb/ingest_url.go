package kb

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
)

// addURL fetches a web page or document through the guarded client and
// ingests it by its Content-Type: HTML's main content, PDF's text,
// Markdown and other text as they are.
func (k *KB) addURL(ctx context.Context, req AddRequest, u string) SourceReport {
	rep := SourceReport{URI: u}
	prev, err := k.stored(ctx, req.KB, u)
	if err != nil {
		return failed(rep, err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return failed(rep, fmt.Errorf("%s: %v", u, err))
	}
	resp, err := k.client.Do(hreq)
	if err != nil {
		return failed(rep, fmt.Errorf("%s: %w", u, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return failed(rep, fmt.Errorf("%s: the server answered %s", u, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, k.opts.MaxBytes+1))
	if err != nil {
		return failed(rep, fmt.Errorf("%s: %v", u, err))
	}
	ct := resp.Header.Get("Content-Type")
	s := source{uri: u, kind: urlKind(ct, resp.Request.URL.Path), size: int64(len(body)), tags: joinTags(req.Tags), contentType: ct}
	if s.size > k.opts.MaxBytes {
		return k.fail(ctx, req, s, fmt.Errorf("%s is more than the %d MB a source may be", u, k.opts.MaxBytes>>20))
	}
	if s.kind == "" {
		return k.fail(ctx, req, s, fmt.Errorf("%s is %s: hermes kb reads HTML, PDF, Markdown and plain text from the web", u, ct))
	}
	return k.ingestBody(ctx, req, s, prev, body)
}

// urlKind is the kind of a fetched body by its Content-Type, or by the
// URL's extension when the type is a generic one.
func urlKind(contentType, urlPath string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML
	case mt == "application/pdf":
		return kindPDF
	case mt == "text/markdown" || mt == "text/x-markdown":
		return kindMarkdown
	case strings.HasPrefix(mt, "text/"), mt == "application/octet-stream", mt == "":
		if k := kindOf(path.Base(urlPath)); k != "" {
			return k
		}
		if strings.HasPrefix(mt, "text/") {
			return kindText
		}
	}
	return ""
}
