package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/safety"
)

func newKBCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kb",
		Short: "Add documents to the knowledge base the agent searches, and search it",
		Long: `The knowledge base holds documents cut into passages that keep their
source, heading path, lines and page: Markdown, plain text, HTML (its main
content), PDF (its text layer), source code, whole folders (honouring
.gitignore) and web pages. They are stored in state.db and searched with
BM25, for words and, for Chinese, Japanese and Korean, for characters.
While a knowledge base holds anything, the agent is offered kb_search
(toolset knowledge) and told to search before answering about the
team's own documents, citing what it used.

Adding again is cheap: a file whose size and time are unchanged is not
read, one whose bytes are unchanged is not cut again, and an edited one
has only its own passages replaced.`,
	}
	cmd.AddCommand(newKBAddCmd(a), newKBListCmd(a), newKBShowCmd(a), newKBRemoveCmd(a), newKBReindexCmd(a), newKBSearchCmd(a))
	return cmd
}

func newKBAddCmd(a *cli) *cobra.Command {
	var name string
	var tags []string
	cmd := &cobra.Command{
		Use:   "add PATH|URL...",
		Short: "Ingest files, folders and web pages",
		Long: `Ingest each PATH (a file or a folder, walked honouring .gitignore and
skipping hidden entries) or http(s) URL into the knowledge base --kb
(default "default"). A source that cannot be read (a corrupt PDF, a page
that does not answer) is reported by name and the others are ingested;
the command then exits with status 1.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			p := newProgressLine(cmd.ErrOrStderr())
			rep, err := h.KB.Add(cmd.Context(), kb.AddRequest{KB: name, Sources: args, Tags: tags, Progress: p.show})
			p.done()
			return reportIngest(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep, err)
		},
	}
	cmd.Flags().StringVar(&name, "kb", "", `the knowledge base to add to (default "default")`)
	cmd.Flags().StringArrayVar(&tags, "tag", nil, "tag the sources (repeat for several); replaces the tags they had")
	return cmd
}

func newKBReindexCmd(a *cli) *cobra.Command {
	var name string
	var reembed bool
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Ingest every stored source again, and the kb.sources of config.yaml",
		Long: `Ingest again every source of --kb (default: all knowledge bases) and
the paths listed under kb.sources in config.yaml. Unchanged files cost a
look at their size and time; edited ones have their passages replaced;
files that are gone are removed with their passages. Passages without a
vector are embedded (kb.embedding); --reembed first drops every vector,
for an embedding model that changed under the same name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			if reembed {
				if !h.Config.Config.KB.Embedding.Set() {
					return fmt.Errorf("--reembed: kb.embedding is not set in config.yaml, so nothing would embed the passages again")
				}
				if err := h.KB.DropVectors(cmd.Context()); err != nil {
					return err
				}
			}
			p := newProgressLine(cmd.ErrOrStderr())
			rep, err := h.ReindexKB(cmd.Context(), name, p.show)
			p.done()
			return reportIngest(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep, err)
		},
	}
	cmd.Flags().StringVar(&name, "kb", "", "only this knowledge base")
	cmd.Flags().BoolVar(&reembed, "reembed", false, "drop every vector first and embed all passages again")
	return cmd
}

// reportIngest prints what an add or reindex did: one line per source
// that changed or failed, then the totals; failures make it an error.
func reportIngest(out, errw io.Writer, rep kb.Report, err error) error {
	count := map[kb.Status]int{}
	for _, s := range rep.Sources {
		count[s.Status]++
		switch s.Status {
		case kb.Failed:
			fmt.Fprintf(errw, "failed   %s\n", safety.Escape(s.Err.Error()))
		case kb.Added, kb.Updated:
			fmt.Fprintf(out, "%-8s %s (%d chunks)\n", s.Status, safety.Escape(s.URI), s.Chunks)
		case kb.Removed:
			fmt.Fprintf(out, "%-8s %s\n", s.Status, safety.Escape(s.URI))
		}
	}
	fmt.Fprintf(out, "%d added, %d updated, %d unchanged, %d removed, %d failed: %d chunks from %s in %s\n",
		count[kb.Added], count[kb.Updated], count[kb.Unchanged], count[kb.Removed], count[kb.Failed],
		rep.Chunks, megabytes(rep.Bytes), rep.Elapsed.Round(time.Millisecond))
	for _, n := range rep.Notes {
		fmt.Fprintf(out, "note: %s\n", n)
	}
	if rep.EmbedErr != nil {
		fmt.Fprintf(errw, "chunks not embedded (BM25 still finds them; run hermes kb reindex again): %s\n", safety.Escape(rep.EmbedErr.Error()))
	}
	if err != nil {
		return err
	}
	if n := count[kb.Failed]; n > 0 {
		return fmt.Errorf("%d of %d sources could not be ingested (listed above)", n, len(rep.Sources))
	}
	return nil
}

// progressLine shows a long ingest's progress on one line of stderr —
// files, chunks and rate — rewritten at most every half second, and only
// once the ingest has run for a second.
type progressLine struct {
	w     io.Writer
	last  time.Duration
	shown bool
}

func newProgressLine(w io.Writer) *progressLine { return &progressLine{w: w} }

func (p *progressLine) show(pr kb.Progress) {
	if pr.Elapsed < time.Second || pr.Elapsed-p.last < 500*time.Millisecond {
		return
	}
	p.last, p.shown = pr.Elapsed, true
	rate := float64(pr.Bytes) / (1 << 20) / pr.Elapsed.Seconds()
	if pr.Embedded > 0 {
		// Embedding comes after reading: its rate is the one that counts.
		fmt.Fprintf(p.w, "\r%d files, %d chunks, %d embedded, %.0f chunks/s ", pr.Files, pr.Chunks, pr.Embedded, float64(pr.Embedded)/pr.Elapsed.Seconds())
		return
	}
	fmt.Fprintf(p.w, "\r%d files, %d chunks, %s, %.1f MB/s ", pr.Files, pr.Chunks, megabytes(pr.Bytes), rate)
}

// done ends the progress line, if one was shown.
func (p *progressLine) done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

// megabytes formats n bytes for people.
func megabytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// sourceArg is a SOURCE argument as stored: a URL as given, a path made
// absolute.
func sourceArg(s string) string {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		return s
	}
	if abs, err := filepath.Abs(s); err == nil {
		return abs
	}
	return s
}

// printKBJSON writes v as indented JSON.
func printKBJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// notFound adds to kb.ErrNotFound where to look.
func notFound(err error) error {
	if errors.Is(err, kb.ErrNotFound) {
		return fmt.Errorf("%w; hermes kb list shows what there is", err)
	}
	return err
}
