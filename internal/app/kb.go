package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/kb"
)

// ReindexKB ingests again the stored sources of the knowledge base name
// (every one when empty), then the kb.sources of config.yaml, which may
// name files, folders and URLs not stored yet. Sources unchanged since
// the last ingest cost a stat. A path of kb.sources that does not exist
// is reported as a failed source, not an error, so the others still go in.
func (a *App) ReindexKB(ctx context.Context, name string, progress func(kb.Progress)) (kb.Report, error) {
	rep, err := a.KB.Reindex(ctx, name, progress)
	if err != nil {
		return rep, err
	}
	for _, s := range a.Config.Config.KB.Sources {
		base := s.KB
		if base == "" {
			base = kb.DefaultKB
		}
		if name != "" && base != name {
			continue
		}
		path := s.Path
		if rest, ok := strings.CutPrefix(path, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				path = filepath.Join(home, rest)
			}
		}
		r, err := a.KB.Add(ctx, kb.AddRequest{KB: base, Sources: []string{path}, Tags: s.Tags})
		if err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			r.Sources = append(r.Sources, kb.SourceReport{URI: path, Status: kb.Failed, Err: err})
		}
		rep.Sources = append(rep.Sources, r.Sources...)
		rep.Files += r.Files
		rep.Chunks += r.Chunks
		rep.Bytes += r.Bytes
		if progress != nil {
			progress(rep.Progress)
		}
	}
	return rep, nil
}

// StartKBReindex brings the knowledge base up to date with its files and
// kb.sources in the background while a long-running front starts (a
// serve that waited for a large ingest would answer nothing meanwhile),
// logging what failed. Close stops it and waits for it before the
// database closes.
func (a *App) StartKBReindex(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep, err := a.ReindexKB(ctx, "", nil)
		if err != nil && ctx.Err() == nil {
			a.Log.Warn("knowledge base reindex", "error", err)
		}
		for _, s := range rep.Failed() {
			a.Log.Warn("knowledge base source not ingested", "source", s.URI, "error", s.Err)
		}
		if n := len(rep.Sources); n > 0 {
			a.Log.Info("knowledge base reindexed", "sources", n, "chunks", rep.Chunks)
			// kb_search is offered only while a knowledge base holds
			// something: the first sources may have just gone in.
			a.Tools.Registry.Refresh()
		}
	}()
	a.onClose(func() {
		cancel()
		<-done
	})
}

// StartFactsBackfill gives, in the background, a vector of the embedding
// model (kb.embedding) to the long-term facts that have none or one of a
// model configured before; it does nothing without one. Close stops it.
func (a *App) StartFactsBackfill(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err := a.Facts.Backfill(ctx)
		if err != nil && ctx.Err() == nil {
			a.Log.Warn("long-term memory: facts not embedded", "error", err, "embedded", n)
		} else if n > 0 {
			a.Log.Info("long-term memory: facts embedded", "facts", n)
		}
	}()
	a.onClose(func() {
		cancel()
		<-done
	})
}

// ResumeExtractions takes up the long-term memory extractions that were
// due in processes that stopped before making them (engine's
// ResumeExtractions), logging how many. An App opened without an engine
// (hermes serve with no model) has none to make.
func (a *App) ResumeExtractions(ctx context.Context) {
	if a.Engine == nil {
		return // serve without a model: no turns, nothing extracts
	}
	n, err := a.Engine.ResumeExtractions(ctx)
	switch {
	case err != nil:
		a.Log.Warn("long-term memory: due extractions not taken up", "error", err)
	case n > 0:
		a.Log.Info("long-term memory: due extractions taken up", "sessions", n)
	}
}
