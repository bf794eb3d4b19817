// Command recall measures what long-term memory recalls on the recall set
// (memory/facts/testdata/recall/set.json: 60 facts and 200 first
// messages, a third of them in another language than their fact or
// unrelated to any): recall@5 and false recall, with words alone and,
// when an embedding model is given, with its vectors too.
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

	"github.com/hermes-go/hermes/internal/sqlitedb"
	"github.com/hermes-go/hermes/memory/facts"
	"github.com/hermes-go/hermes/memory/facts/recalltest"
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
		embed, name = facts.EmbedOpenAI(baseURL, key, model), model
	}
	dir, err := os.MkdirTemp("", "hermes-recall-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	for i, mode := range []struct {
		name  string
		embed facts.EmbedFunc
	}{{"words alone", nil}, {"words and " + name, embed}} {
		db, err := sqlitedb.Open(ctx, filepath.Join(dir, fmt.Sprintf("state%d.db", i)), sqlitedb.Options{})
		if err != nil {
			return err
		}
		sc, err := recalltest.Run(ctx, facts.New(db, facts.Options{Embed: mode.embed}), set)
		db.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", mode.name, err)
		}
		fmt.Printf("%-30s %s\n", mode.name, sc)
	}
	return nil
}
