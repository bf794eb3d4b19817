package kb

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/docconv/pdftest"
)

// TestRecallAt5 builds a corpus of 300 Markdown, HTML and PDF documents,
// a tenth of them Chinese, each holding one fact amid filler that shares
// their vocabulary, and asks one question per fact: the document holding
// the answer must be among the first five results for at least 99% of
// them by BM25 alone; vectors alone (llmtest's deterministic ones) and
// their fusion with BM25 are held to the floors below. The three
// figures are logged (go test -v -run RecallAt5).
func TestRecallAt5(t *testing.T) { eachBackend(t, testRecallAt5) }

func testRecallAt5(t *testing.T, backend string) {
	if testing.Short() {
		t.Skip("ingests 300 documents")
	}
	k := openKB(t, backend, Options{})
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	attrs := []string{"owner", "deadline", "budget", "database", "region", "language"}
	zhAttrs := []string{"负责人", "截止日期", "预算", "数据库", "区域"}
	type question struct{ q, file string }
	var qs []question
	filler := func() string {
		var paras []string
		for range 4 {
			paras = append(paras, benchWords(r, 60)+".")
		}
		return strings.Join(paras, "\n\n")
	}
	for i := range 300 {
		project := fmt.Sprintf("project%03d", i)
		var name string
		var data []byte
		if i%10 == 0 {
			a := zhAttrs[r.IntN(len(zhAttrs))]
			fact := fmt.Sprintf("项目%s的%s是值%d。", project, a, r.IntN(1e6))
			name = fmt.Sprintf("zh%03d.md", i)
			data = []byte(fmt.Sprintf("# 项目%s\n\n%s\n\n## 说明\n\n%s\n\n%s\n", project, filler(), fact, filler()))
			qs = append(qs, question{fmt.Sprintf("%s的%s是什么", project, a), name})
		} else {
			a := attrs[r.IntN(len(attrs))]
			fact := fmt.Sprintf("The %s of %s is value%d.", a, project, r.IntN(1e6))
			switch i % 3 {
			case 0:
				name = fmt.Sprintf("doc%03d.md", i)
				data = []byte(fmt.Sprintf("# Notes %d\n\n%s\n\n## Facts\n\n%s\n\n%s\n", i, filler(), fact, filler()))
			case 1:
				name = fmt.Sprintf("doc%03d.html", i)
				data = []byte(fmt.Sprintf("<html><head><title>Notes %d</title></head><body><article><h1>Notes %d</h1><p>%s</p><h2>Facts</h2><p>%s</p><p>%s</p></article></body></html>", i, i, filler(), fact, filler()))
			default:
				name = fmt.Sprintf("doc%03d.pdf", i)
				data = pdftest.Build(fmt.Sprintf("Notes %d", i), strings.ReplaceAll(filler(), "\n", " "), fact)
			}
			qs = append(qs, question{fmt.Sprintf("what is the %s of %s", a, project), name})
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The corpus is ingested once, embedded; k searches it by BM25
	// alone, hybrid by BM25 fused with vectors.
	hybrid := New(k.db, Options{Clock: k.clock, Embedder: &synonymEmbedder{}})
	rep, err := hybrid.Add(t.Context(), AddRequest{Sources: []string{dir}})
	if err != nil || len(rep.Failed()) > 0 {
		t.Fatalf("%v %+v", err, rep.Failed())
	}
	vectors := func(q Query) ([]Result, error) {
		list, err := vectorRanker{k: hybrid}.Rank(t.Context(), q, q.Limit)
		if err != nil {
			return nil, err
		}
		return hybrid.results(t.Context(), list, nil)
	}
	asked := qs
	if raceDetector || backend == "postgres" {
		// Every fifth question: the corpus stays whole, the figure
		// is the one the full run reports. PostgreSQL's search costs
		// about 0.1 s a question here, where every chunk holds most of
		// the question's words, against SQLite's few milliseconds.
		asked = nil
		for i := 0; i < len(qs); i += 5 {
			asked = append(asked, qs[i])
		}
	}
	recall := func(search func(Query) ([]Result, error)) (float64, int) {
		hits := 0
		for _, q := range asked {
			res, err := search(Query{Text: q.q, Limit: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range res {
				if filepath.Base(x.Source) == q.file {
					hits++
					break
				}
			}
		}
		return float64(hits) / float64(len(asked)), hits
	}
	for _, c := range []struct {
		name   string
		search func(Query) ([]Result, error)
		floor  float64
	}{
		{"BM25", func(q Query) ([]Result, error) { return results(k.Search(t.Context(), q)) }, 0.99},
		{"vectors", vectors, vectorFloor},
		{"fusion", func(q Query) ([]Result, error) { return results(hybrid.Search(t.Context(), q)) }, fusionFloor},
	} {
		r, hits := recall(c.search)
		t.Logf("%s recall@5: %.3f (%d of %d questions; %d sources, %d chunks)", c.name, r, hits, len(asked), len(rep.Sources), rep.Chunks)
		if r < c.floor {
			t.Errorf("%s recall@5 %.3f, want at least %.2f", c.name, r, c.floor)
		}
	}
}

// vectorFloor and fusionFloor are the recall@5 vectors alone and their
// fusion with BM25 must reach on the corpus of TestRecallAt5 (0.32 and
// 0.40 measured over all 300 questions; 0.28 and 0.67 over the fifth the
// race detector's run asks). llmtest's vectors hash words, not meaning: the fact's
// few words are diluted by the filler of its chunk, so they rank the
// chunks of other projects holding the same attribute high, and those,
// found by both rankers, outscore under reciprocal rank fusion the one
// BM25 alone puts first. A weak embedder thus costs recall here; the
// floors pin the figures so a change to either ranker shows.
const (
	vectorFloor = 0.27
	fusionFloor = 0.38
)
