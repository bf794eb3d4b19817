package facts

import (
	"encoding/json"
	"os"
	"testing"
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
