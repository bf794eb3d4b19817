package facts

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// recallSet is testdata/recall/set.json: 60 facts and 200 first messages
// of conversations (direct questions, paraphrases, longer requests,
// messages in another language than their fact, and unrelated messages,
// half of them sharing words with some fact), each with the facts a good
// memory recalls for it.
type recallSet struct {
	Facts []struct {
		ID, Kind, Subject, Content string
	}
	Messages []struct {
		Text, Type, Lang string
		Recall           []string
	}
}

func loadRecallSet(t testing.TB) recallSet {
	t.Helper()
	b, err := os.ReadFile("testdata/recall/set.json")
	if err != nil {
		t.Fatal(err)
	}
	var set recallSet
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatalf("testdata/recall/set.json: %v", err)
	}
	return set
}

// testEmbed embeds with llmtest's deterministic vectors (hashed words and
// CJK bigrams): they exercise the mechanics, but know no synonyms and no
// other language, as a real embedding model does.
func testEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = llmtest.Embed(t)
	}
	return out, nil
}
