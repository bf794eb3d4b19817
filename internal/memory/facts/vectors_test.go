package facts

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// A byte per dimension keeps cosines within 0.02 of the exact ones, at
// the sizes of real models' vectors.
func TestQuantizedCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dims := range []int{3, 384, 1536} {
		for range 50 {
			a, b := make([]float32, dims), make([]float32, dims)
			for i := range a {
				a[i] = float32(r.NormFloat64())
				b[i] = a[i]*float32(r.Float64()) + float32(r.NormFloat64())
			}
			var c vectorCache
			c.put(1, a)
			got := c.similar(unit(b), map[int64]bool{1: true})[1]
			if want := cosineUnit(unit(a), unit(b)); math.Abs(got-want) > 0.02 {
				t.Fatalf("%d dimensions: quantized cosine %.4f, exact %.4f", dims, got, want)
			}
		}
	}
}

// A process's vectors in memory follow what other processes store,
// replace and forget: a fact another store added is found by meaning at
// the next recall, a forgotten one is not, and a prune lets go of its
// vector.
func TestVectorCacheFollowsTheTable(t *testing.T) { eachBackend(t, testVectorCacheFollowsTheTable) }

func testVectorCacheFollowsTheTable(t *testing.T, backend string) {
	srv, _ := topicServer(t, [][]string{
		{"chinese", "中文", "language", "mandarin"},
		{"deploy", "部署", "production", "release", "ship"},
	})
	db := dbtest.Open(t, backend)
	opt := Options{Embed: EmbedOpenAI(srv.URL+"/v1", "", "embed-model"), EmbedModel: "local/embed-model"}
	reader, writer := New(db, opt), New(db, opt)
	ctx := context.Background()
	mustAdd(t, writer, Fact{Kind: KindFact, Subject: "misc", Content: "The office plant is a ficus."})
	if got, err := Recall(ctx, reader, "用中文回答我", 3); err != nil || len(got) != 0 {
		t.Fatalf("before: %+v, %v", got, err)
	}
	mustAdd(t, writer, Fact{Kind: KindPreference, Subject: "language", Content: "The user wants answers in Chinese."})
	got, err := Recall(ctx, reader, "用中文回答我", 3)
	if err != nil || len(got) != 1 || !strings.Contains(got[0].Content, "Chinese") {
		t.Fatalf("a fact another store added: %+v, %v; want it found by its vector", got, err)
	}
	if err := writer.Forget(ctx, got[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, err := Recall(ctx, reader, "用中文回答我", 3); err != nil || len(got) != 0 {
		t.Fatalf("a forgotten fact was recalled: %+v, %v", got, err)
	}
	c := reader.vecs
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ids) != 2 {
		t.Fatalf("before the prune the cache holds %d vectors, want 2", len(c.ids))
	}
	if err := c.prune(ctx, reader.read, reader.model, time.Now()); err != nil {
		t.Fatal(err)
	}
	if len(c.ids) != 1 || len(c.slab) != c.dims || len(c.at) != 1 {
		t.Errorf("after the prune: %d ids, %d bytes, %d indexed; want the one fact left", len(c.ids), len(c.slab), len(c.at))
	}
}

// The vectors in memory are every owner's, and recall by meaning still
// finds a user's own facts only.
func TestVectorRecallKeepsToItsOwner(t *testing.T) { eachBackend(t, testVectorRecallKeepsToItsOwner) }

func testVectorRecallKeepsToItsOwner(t *testing.T, backend string) {
	srv, _ := topicServer(t, [][]string{{"chinese", "中文", "language"}})
	s := openOn(t, backend, Options{Embed: EmbedOpenAI(srv.URL+"/v1", "", "embed-model"), EmbedModel: "local/embed-model"})
	ctx := context.Background()
	mustAdd(t, s.For("alice"), Fact{Kind: KindPreference, Subject: "language", Content: "Alice wants answers in Chinese."})
	if got, err := Recall(ctx, s.For("bob"), "用中文回答我", 3); err != nil || len(got) != 0 {
		t.Errorf("bob recalled %+v, %v; want none of alice's facts", got, err)
	}
	if got, err := Recall(ctx, s, "用中文回答我", 3); err != nil || len(got) != 0 {
		t.Errorf("the shared space recalled %+v, %v; want none of alice's facts", got, err)
	}
	if got, err := Recall(ctx, s.For("alice"), "用中文回答我", 3); err != nil || len(got) != 1 {
		t.Errorf("alice recalled %+v, %v; want her fact", got, err)
	}
}
