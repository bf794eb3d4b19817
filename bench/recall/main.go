// Command recall measures what long-term memory recalls on the recall set
// (memory/facts/testdata/recall/set.json: 60 facts and 200 first
// messages, a third of them in another language than their fact or
// unrelated to any): recall@5 and false recall with words alone, with an
// embedding model's vectors alone, and with both (hybrid, the default),
// then hybrid's figures for a range of minimum margins
// (memory.long_term.min_margin), to choose one for the model from.
//
//	go run ./bench/recall
//	go run ./bench/recall -base-url https://api.openai.com/v1 -model text-embedding-3-small   # key in $OPENAI_API_KEY
//	go run ./bench/recall -base-url http://localhost:11434/v1 -model nomic-embed-text -key-env ""
//
// Without -model it measures with llmtest's deterministic vectors
// (hashed words), which know no synonym and no other language: they
// show the mechanics, not what a model brings.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/memory/facts/recalltest"
	"github.com/hermes-go/hermes/internal/sqlitedb"
)

func main() {
	setPath := flag.String("set", "memory/facts/testdata/recall/set.json", "the recall set")
	baseURL := flag.String("base-url", "", "an OpenAI-compatible endpoint with /embeddings")
	model := flag.String("model", "", "the embedding model; empty uses llmtest's deterministic vectors")
	keyEnv := flag.String("key-env", "OPENAI_API_KEY", "the environment variable holding the endpoint's key (empty: none)")
	flag.Parse()
	if err := run(*setPath, *baseURL, *model, *keyEnv); err != nil {
		fmt.Fprintln(os.Stderr, "recall:", err)
		os.Exit(1)
	}
}

func run(setPath, baseURL, model, keyEnv string) error {
	set, err := recalltest.Load(setPath)
	if err != nil {
		return err
	}
	embed, name := facts.EmbedFunc(recalltest.Embed), "llmtest vectors"
	if model != "" {
		if baseURL == "" {
			return fmt.Errorf("-model %q needs -base-url, the endpoint that serves it", model)
		}
		key := ""
		if keyEnv != "" {
			key = os.Getenv(keyEnv)
		}
		embed, name = recalltest.Memo(facts.EmbedOpenAI(baseURL, key, model)), model
	}
	dir, err := os.MkdirTemp("", "hermes-recall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	open := func(name string, opt facts.Options) (*facts.Store, func(), error) {
		db, err := sqlitedb.Open(ctx, filepath.Join(dir, name+".db"), sqlitedb.Options{})
		if err != nil {
			return nil, nil, err
		}
		return facts.New(db, opt), func() { db.Close() }, nil
	}
	for _, mode := range []struct {
		name string
		opt  facts.Options
	}{
		{"words alone", facts.Options{Recall: facts.RecallWords}},
		{name + " alone", facts.Options{Recall: facts.RecallVectors, Embed: embed, EmbedModel: model}},
		{"words and " + name, facts.Options{Embed: embed, EmbedModel: model}},
	} {
		st, done, err := open(strings.ReplaceAll(mode.name, " ", "-"), mode.opt)
		if err != nil {
			return err
		}
		sc, err := recalltest.Run(ctx, st, set)
		done()
		if err != nil {
			return fmt.Errorf("%s: %w", mode.name, err)
		}
		fmt.Printf("%-34s %s\n", mode.name, sc)
	}
	// The margins around the default, to choose memory.long_term.min_margin
	// for this model from.
	st, done, err := open("sweep", facts.Options{Embed: embed, EmbedModel: model})
	if err != nil {
		return err
	}
	defer done()
	margins := []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5}
	scores, err := recalltest.Sweep(ctx, st, set, margins)
	if err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	fmt.Printf("\nwords and %s, by min_margin (default %.2f):\n", name, facts.DefaultMinMargin)
	for i, m := range margins {
		fmt.Printf("  %.2f  %s\n", m, scores[i])
	}
	return nil
}
