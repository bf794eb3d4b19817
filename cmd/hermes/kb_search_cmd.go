package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/safety"
)

func newKBSearchCmd(a *cli) *cobra.Command {
	var q kb.Query
	var asJSON bool
	cmd := &cobra.Command{
		Use:   `search "QUERY"`,
		Short: "Search the knowledge base as the agent's kb_search does",
		Long: `Print the passages best matching QUERY, each with its citation (source
and lines, or PDF page, and heading path) and score. Words are matched
whole; Chinese, Japanese and Korean text by its characters.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			q.Text = args[0]
			hits, err := h.KB.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			if hits.Degraded != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "hermes: searched by keywords only; vector search failed: %s\n", safety.Escape(hits.Degraded))
			}
			res, w := hits.Results, cmd.OutOrStdout()
			if asJSON {
				if res == nil {
					res = []kb.Result{}
				}
				return printKBJSON(w, res)
			}
			if len(res) == 0 {
				fmt.Fprintln(w, "nothing matches; try other words, or hermes kb list to see what is in the knowledge base")
				return nil
			}
			for i, r := range res {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "%d. %s  [%s, score %.4f]\n", i+1, safety.Escape(kb.Cite(r)), r.KB, r.Score)
				for _, line := range strings.Split(r.Text, "\n") {
					fmt.Fprintf(w, "   %s\n", safety.Escape(line))
				}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&q.KB, "kb", "", "search only this knowledge base")
	fl.StringVar(&q.Tag, "tag", "", "only sources with this tag")
	fl.StringVar(&q.SourcePrefix, "source", "", "only sources whose path or URL starts with this")
	fl.IntVar(&q.Limit, "limit", 5, "how many passages (at most 50)")
	fl.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

func newKBListCmd(a *cli) *cobra.Command {
	var name string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the sources of the knowledge bases",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			list, err := h.KB.Sources(cmd.Context(), name)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if list == nil {
					list = []kb.SourceInfo{}
				}
				return printKBJSON(w, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(w, "the knowledge base is empty; hermes kb add PATH|URL adds documents")
				return nil
			}
			fmt.Fprintf(w, "%-12s %-8s %6s %9s  %s\n", "KB", "KIND", "CHUNKS", "SIZE", "SOURCE")
			for _, s := range list {
				note := ""
				if len(s.Tags) > 0 {
					note = "  [" + strings.Join(s.Tags, ", ") + "]"
				}
				if s.Error != "" {
					note += "  failed: " + s.Error
				}
				fmt.Fprintf(w, "%-12s %-8s %6d %9s  %s\n", s.KB, s.Kind, s.Chunks, megabytes(s.Size), oneLine(s.URI+note, 200))
			}
			st, err := h.KB.Vectors(cmd.Context())
			if err != nil || st.Vectors == 0 {
				return err
			}
			index := "searched exactly"
			if st.Cells > 0 {
				index = fmt.Sprintf("indexed in %d cells", st.Cells)
			}
			fmt.Fprintf(w, "\nvectors: %d of %d chunks embedded by %s (%d dimensions), %s\n", st.Vectors, st.Chunks, safety.Escape(st.Model), st.Dims, index)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "kb", "", "only this knowledge base")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sources as JSON")
	return cmd
}

func newKBShowCmd(a *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "show SOURCE",
		Short: "Show a source and its chunks: heading path, lines or page, size",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			infos, err := h.KB.Source(cmd.Context(), sourceArg(args[0]))
			if err != nil {
				return notFound(err)
			}
			w := cmd.OutOrStdout()
			for _, s := range infos {
				fmt.Fprintf(w, "%s in %s: %s, %s, %d chunks, ingested %s\n", safety.Escape(s.URI), s.KB, s.Kind, megabytes(s.Size), s.Chunks, localTime(s.IngestedAt))
				if s.Error != "" {
					fmt.Fprintf(w, "  failed: %s\n", safety.Escape(s.Error))
				}
				chunks, err := h.KB.Chunks(cmd.Context(), s.KB, s.URI)
				if err != nil {
					return err
				}
				for i, c := range chunks {
					where := fmt.Sprintf("lines %d-%d", c.LineStart, c.LineEnd)
					if c.Page > 0 {
						where = fmt.Sprintf("page %d, %s", c.Page, where)
					}
					fmt.Fprintf(w, "  %3d  %-22s %s  %s\n", i+1, where, oneLine(c.Heading, 40), oneLine(c.Text, 60))
				}
			}
			return nil
		},
	}
}

func newKBRemoveCmd(a *cli) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "remove SOURCE... | --kb NAME",
		Short: "Remove sources and their chunks, or a whole knowledge base",
		Long: `Remove each SOURCE (a path or URL as added) with its chunks, from the
knowledge base --kb or from every one holding it. With --kb and no
SOURCE, remove that whole knowledge base.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && name == "" {
				return errors.New("name a SOURCE to remove, or --kb NAME to remove a whole knowledge base")
			}
			h, err := a.openStores(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			w := cmd.OutOrStdout()
			if len(args) == 0 {
				n, err := h.KB.RemoveKB(cmd.Context(), name)
				if err != nil {
					return notFound(err)
				}
				fmt.Fprintf(w, "knowledge base %s removed (%d sources)\n", name, n)
				return nil
			}
			for _, arg := range args {
				src := sourceArg(arg)
				if _, err := h.KB.Remove(cmd.Context(), name, src); err != nil {
					return notFound(err)
				}
				fmt.Fprintf(w, "removed %s\n", safety.Escape(src))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "kb", "", "the knowledge base to remove from, or to remove")
	return cmd
}
