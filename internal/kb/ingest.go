package kb

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gitignore"
)

// AddRequest is what Add ingests.
type AddRequest struct {
	// KB names the knowledge base (DefaultKB when empty).
	KB string
	// Sources are file paths, folder paths and http(s) URLs.
	Sources []string
	// Tags are set on every source added, replacing the tags it had.
	Tags []string
	// Progress, when set, is called after every source with the totals
	// so far.
	Progress func(Progress)
}

// Progress is the running total of an Add.
type Progress struct {
	Files  int   // sources looked at
	Chunks int   // chunks written
	Bytes  int64 // bytes of the sources read
	// Embedded is the chunks embedded so far: after the sources are
	// written, their chunks are embedded in batches across sources.
	Embedded int
	Elapsed  time.Duration // since Add started
}

// Status is what Add did with one source.
type Status string

// The statuses of a source in a Report.
const (
	Added     Status = "added"
	Updated   Status = "updated"
	Unchanged Status = "unchanged"
	Removed   Status = "removed"
	Failed    Status = "failed"
)

// SourceReport is the outcome of one source.
type SourceReport struct {
	URI    string
	Status Status
	Chunks int
	Bytes  int64
	// Err says why a source Failed, naming it.
	Err error
}

// Report is the outcome of an Add: every source it touched, in order.
type Report struct {
	Sources []SourceReport
	Progress
	// EmbedErr says why chunks that went in have no vector yet (BM25
	// finds them, and a reindex embeds them), or why the vector index
	// could not be trained.
	EmbedErr error
	// Notes are what a person should know of the vectors: that those
	// of an earlier model were dropped, that the index was trained.
	Notes []string
}

// Failed is the sources that failed.
func (r Report) Failed() []SourceReport {
	var out []SourceReport
	for _, s := range r.Sources {
		if s.Status == Failed {
			out = append(out, s)
		}
	}
	return out
}

// Add ingests req.Sources into the knowledge base req.KB. A folder is
// walked honouring .gitignore files (and skipping hidden entries), its
// files of a known kind ingested, and sources once under it that are
// gone are removed. Each source is written in a transaction of its own,
// so one that fails (a corrupt PDF, an unreachable URL) is reported in
// the Report by name and the others are ingested; the error is only for
// a request that cannot start: a bad name, a path that does not exist.
func (k *KB) Add(ctx context.Context, req AddRequest) (Report, error) {
	if req.KB == "" {
		req.KB = DefaultKB
	}
	if err := CheckName(req.KB); err != nil {
		return Report{}, err
	}
	for _, t := range req.Tags {
		if err := CheckTag(t); err != nil {
			return Report{}, err
		}
	}
	in := ingest{k: k, req: req, start: k.clock.Now()}
	for _, src := range req.Sources {
		if isURL(src) {
			continue
		}
		if _, err := os.Stat(src); err != nil {
			return Report{}, fmt.Errorf("source %q: %w", src, err)
		}
	}
	if err := in.prepare(ctx); err != nil {
		return in.rep, err
	}
	defer in.finish(ctx)
	for _, src := range req.Sources {
		if err := ctx.Err(); err != nil {
			return in.rep, err
		}
		if isURL(src) {
			in.record(k.addURL(ctx, req, src))
			continue
		}
		abs, err := filepath.Abs(src)
		if err != nil {
			return in.rep, fmt.Errorf("source %q: %w", src, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return in.rep, fmt.Errorf("source %q: %w", src, err)
		}
		if !fi.IsDir() {
			in.record(k.addFile(ctx, req, abs))
			continue
		}
		if err := in.folder(ctx, abs); err != nil {
			return in.rep, err
		}
	}
	in.embed(ctx)
	return in.rep, nil
}

// ingest is the state of one Add.
type ingest struct {
	k     *KB
	req   AddRequest
	start time.Time
	rep   Report
}

// prepare drops the vectors of another embedding model before any
// source is embedded (see prepareVectors).
func (in *ingest) prepare(ctx context.Context) error {
	note, err := in.k.prepareVectors(ctx)
	if note != "" {
		in.rep.Notes = append(in.rep.Notes, note)
	}
	return err
}

// embed embeds every chunk still without a vector, after the sources
// are written: batches then fill across small sources, one call for many
// files rather than one each, and a failed call leaves the text stored
// and searchable by BM25.
func (in *ingest) embed(ctx context.Context) {
	_, err := in.k.embedMissing(ctx, func(n int) {
		in.rep.Embedded += n
		in.rep.Elapsed = in.k.clock.Now().Sub(in.start)
		if in.req.Progress != nil {
			in.req.Progress(in.rep.Progress)
		}
	})
	if err != nil {
		in.rep.EmbedErr = fmt.Errorf("%w (their text is searchable; hermes kb reindex embeds them again)", err)
	}
}

// finish brings the vector index up to date with what the ingest
// stored, even one cut short: what went in is searchable either way.
func (in *ingest) finish(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	trained, err := in.k.maintainIndex(ctx)
	switch {
	case err != nil && in.rep.EmbedErr == nil:
		in.rep.EmbedErr = fmt.Errorf("vector index: %w (searches read every vector until an ingest trains it)", err)
	case trained:
		in.rep.Notes = append(in.rep.Notes, "the vector index was trained again for the vectors now stored")
	}
}

// record adds a source's outcome to the report and reports progress.
func (in *ingest) record(r SourceReport) {
	in.rep.Sources = append(in.rep.Sources, r)
	in.rep.Files++
	in.rep.Chunks += r.Chunks
	in.rep.Bytes += r.Bytes
	in.rep.Elapsed = in.k.clock.Now().Sub(in.start)
	if in.req.Progress != nil {
		in.req.Progress(in.rep.Progress)
	}
}

// folder ingests the files under root and removes the sources once
// under it that the walk no longer finds.
func (in *ingest) folder(ctx context.Context, root string) error {
	seen := map[string]bool{}
	stack := gitignore.Ancestors(root)
	err := in.walk(ctx, root, stack, seen)
	if err != nil {
		return err
	}
	gone, err := in.k.sourcesUnder(ctx, in.req.KB, root+string(filepath.Separator))
	if err != nil {
		return err
	}
	for _, uri := range gone {
		if seen[uri] {
			continue
		}
		if err := in.k.removeSource(ctx, in.req.KB, uri); err != nil {
			return err
		}
		in.rep.Sources = append(in.rep.Sources, SourceReport{URI: uri, Status: Removed})
	}
	return nil
}

// walk ingests dir's files, depth first in name order.
func (in *ingest) walk(ctx context.Context, dir string, stack []*gitignore.File, seen map[string]bool) error {
	if ig := gitignore.Load(dir); ig != nil {
		stack = append(stack[:len(stack):len(stack)], ig)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		in.record(SourceReport{URI: dir, Status: Failed, Err: fmt.Errorf("read folder %s: %w", dir, err)})
		return nil
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		abs := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".") || gitignore.Ignored(stack, abs, e.IsDir()) {
			continue
		}
		switch {
		case e.IsDir():
			if err := in.walk(ctx, abs, stack, seen); err != nil {
				return err
			}
		case e.Type().IsRegular() && kindOf(abs) != "":
			seen[abs] = true
			in.record(in.k.addFile(ctx, in.req, abs))
		case e.Type()&fs.ModeSymlink != 0:
			// Links are not followed: one could lead out of the folder
			// or round in a loop.
		}
	}
	return nil
}

// isURL reports whether src is an http or https URL.
func isURL(src string) bool {
	return strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://")
}
