package kb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/docconv"
	"github.com/hermes-go/hermes/internal/sqltext"
)

// The kinds of source ingest reads.
const (
	kindMarkdown = "markdown"
	kindText     = "text"
	kindHTML     = "html"
	kindPDF      = "pdf"
	kindCode     = "code"
)

// kindOf is the kind of a file by its name, "" for one ingest does not
// read when it meets it in a folder.
func kindOf(name string) string {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".md", ".markdown", ".mdx":
		return kindMarkdown
	case ".txt", ".text", ".rst", ".adoc", ".org":
		return kindText
	case ".html", ".htm", ".xhtml":
		return kindHTML
	case ".pdf":
		return kindPDF
	default:
		if declPrefixes(ext) != nil {
			return kindCode
		}
	}
	return ""
}

// source is a source's row as ingest compares and writes it.
type source struct {
	id              int64
	uri, kind, hash string
	mtime, size     int64
	tags, err       string
	contentType     string // for URLs: the Content-Type as sent
}

// addFile ingests the file abs, skipping it without reading when its
// size, modification time and tags are as stored, and without chunking
// when its bytes hash as stored.
func (k *KB) addFile(ctx context.Context, req AddRequest, abs string) SourceReport {
	rep := SourceReport{URI: abs}
	fi, err := os.Stat(abs)
	if err != nil {
		return failed(rep, err)
	}
	s := source{uri: abs, kind: kindOf(abs), mtime: fi.ModTime().UnixMicro(), size: fi.Size(), tags: joinTags(req.Tags)}
	prev, err := k.stored(ctx, req.KB, abs)
	if err != nil {
		return failed(rep, err)
	}
	if prev != nil && prev.err == "" && prev.size == s.size && prev.mtime == s.mtime && prev.tags == s.tags {
		rep.Status = Unchanged
		return rep
	}
	if s.size > k.opts.MaxBytes {
		return k.fail(ctx, req, s, fmt.Errorf("%s is %d MB, more than the %d MB a source may be", abs, s.size>>20, k.opts.MaxBytes>>20))
	}
	body, err := os.ReadFile(abs)
	if err != nil {
		return failed(rep, err)
	}
	return k.ingestBody(ctx, req, s, prev, body)
}

// ingestBody hashes body and, unless it is what prev already holds,
// converts, chunks and stores it.
func (k *KB) ingestBody(ctx context.Context, req AddRequest, s source, prev *source, body []byte) SourceReport {
	rep := SourceReport{URI: s.uri, Bytes: int64(len(body))}
	sum := sha256.Sum256(body)
	s.hash = hex.EncodeToString(sum[:])
	if prev != nil && prev.err == "" && prev.hash == s.hash {
		if err := k.touch(ctx, prev.id, s); err != nil {
			return failed(rep, err)
		}
		rep.Status = Unchanged
		return rep
	}
	if s.kind == "" {
		if !looksText(body) {
			return k.fail(ctx, req, s, fmt.Errorf("%s: not a kind hermes kb reads (Markdown, plain text, HTML, PDF or source code)", s.uri))
		}
		s.kind = kindText
	}
	chunks, err := k.convert(s, body)
	if err != nil {
		return k.fail(ctx, req, s, fmt.Errorf("%s: %v", s.uri, err))
	}
	if err := k.write(ctx, req.KB, s, chunks); err != nil {
		return failed(rep, err)
	}
	rep.Status, rep.Chunks = Added, len(chunks)
	if prev != nil {
		rep.Status = Updated
	}
	return rep
}

// convert turns a source's bytes into chunks by its kind.
func (k *KB) convert(s source, body []byte) ([]Chunk, error) {
	o := k.opts.Chunk
	switch s.kind {
	case kindPDF:
		_, pages, err := docconv.PDFPages(body)
		if err != nil {
			return nil, err
		}
		return ChunkPages(pages, o), nil
	case kindHTML:
		u, err := url.Parse(s.uri)
		if err != nil || !isURL(s.uri) {
			u = &url.URL{Scheme: "file", Path: filepath.ToSlash(s.uri)}
		}
		_, text, err := docconv.HTMLToMarkdown(body, s.contentType, u)
		if err != nil {
			return nil, err
		}
		return ChunkMarkdown(text, o), nil
	}
	text := docconv.DecodeText(body, s.contentType)
	switch s.kind {
	case kindMarkdown:
		return ChunkMarkdown(text, o), nil
	case kindCode:
		return ChunkCode(s.uri, text, o), nil
	default:
		return ChunkText(text, o), nil
	}
}

// looksText reports whether body reads as text: valid UTF-8 without NUL
// bytes in its first 8 KB.
func looksText(body []byte) bool {
	head := body[:min(len(body), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1] // a rune cut at the 8 KB mark
		if len(body) <= 8<<10 {
			return false
		}
	}
	return true
}

// failed is rep failing with err.
func failed(rep SourceReport, err error) SourceReport {
	rep.Status, rep.Err = Failed, err
	return rep
}

// fail records that s could not be read: its row keeps the error (so
// hermes kb list shows it and the next add tries again) and loses its
// chunks, which no longer match the source.
func (k *KB) fail(ctx context.Context, req AddRequest, s source, err error) SourceReport {
	rep := failed(SourceReport{URI: s.uri}, err)
	s.err = err.Error()
	if werr := k.write(ctx, req.KB, s, nil); werr != nil {
		rep.Err = errors.Join(err, werr)
	}
	return rep
}

// stored is the row of uri in the knowledge base named kb, nil when
// there is none.
func (k *KB) stored(ctx context.Context, kb, uri string) (*source, error) {
	var s source
	err := k.db.Reader().QueryRowContext(ctx, `
SELECT s.id, s.kind, s.hash, s.mtime, s.size, s.tags, s.error
FROM kb_sources s JOIN kb_bases b ON b.id = s.kb
WHERE b.name = ? AND s.uri = ?`, kb, sqltext.Clean(k.db.Dialect(), uri)).Scan(&s.id, &s.kind, &s.hash, &s.mtime, &s.size, &s.tags, &s.err)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read source %s: %w", uri, err)
	}
	s.uri = uri
	return &s, nil
}
