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
// them. The figure is logged (go test -v -run RecallAt5).
func TestRecallAt5(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 300 documents")
	}
	k := openKB(t, Options{})
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
	rep, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}})
	if err != nil || len(rep.Failed()) > 0 {
		t.Fatalf("%v %+v", err, rep.Failed())
	}
	hits := 0
	for _, q := range qs {
		res, err := k.Search(t.Context(), Query{Text: q.q, Limit: 5})
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
	recall := float64(hits) / float64(len(qs))
	t.Logf("BM25 recall@5: %.3f (%d of %d questions; %d sources, %d chunks)", recall, hits, len(qs), len(rep.Sources), rep.Chunks)
	if recall < 0.99 {
		t.Errorf("recall@5 %.3f, want at least 0.99", recall)
	}
}
