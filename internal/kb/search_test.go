package kb

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// searchFixture ingests two knowledge bases with tags.
func searchFixture(t *testing.T, backend string, opts Options) (*KB, string) {
	t.Helper()
	k := openKB(t, backend, opts)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ops/deploy.md":   "# Operations\n## Deploy\nThe gateway is deployed with a rolling restart behind the load balancer.\n## Backups\nBackups run nightly to the object store.\n",
		"ops/db.md":       "# 数据库\n## 迁移\n数据库迁移脚本在发布前由值班工程师运行。\n## 备份\n每天夜里备份到对象存储。\n",
		"ops/owners.md":   "# 负责人\n## A\n项目gatewayx的负责人是张三。\n## B\n项目billingx的负责人是李四。\n",
		"hr/leave.md":     "# Leave\nAnnual leave is twenty-five days; carry-over needs approval.\n",
		"hr/payroll.txt":  "Payroll runs on the 25th of every month.\n",
		"misc/ignore.txt": "nothing of interest here, unrelated words only\n",
	})
	for _, add := range []AddRequest{
		{KB: "ops", Sources: []string{filepath.Join(dir, "ops")}, Tags: []string{"runbook"}},
		{KB: "hr", Sources: []string{filepath.Join(dir, "hr")}},
		{KB: "ops", Sources: []string{filepath.Join(dir, "misc")}},
	} {
		if _, err := k.Add(t.Context(), add); err != nil {
			t.Fatal(err)
		}
	}
	return k, dir
}

// TestSearch: words, CJK phrases and two-character CJK words find their
// passages with citation fields; filters by knowledge base, source
// prefix and tag narrow the results.
func TestSearch(t *testing.T) { eachBackend(t, testSearch) }

func testSearch(t *testing.T, backend string) {
	k, dir := searchFixture(t, backend, Options{})
	tests := []struct {
		name    string
		q       Query
		source  string // base name of the first result's source, "" for none
		heading string
		text    string
	}{
		{"words", Query{Text: "how is the gateway deployed?"}, "deploy.md", "Operations > Deploy", "rolling restart"},
		{"ranked by rarity", Query{Text: "the nightly backups"}, "deploy.md", "Operations > Backups", "nightly"},
		{"chinese phrase", Query{Text: "迁移脚本什么时候运行"}, "db.md", "数据库 > 迁移", "值班工程师"},
		{"two chinese characters", Query{Text: "备份"}, "db.md", "数据库 > 备份", "对象存储"},
		{"a word glued to chinese", Query{Text: "billingx的负责人"}, "owners.md", "负责人 > B", "李四"},
		{"cross knowledge base", Query{Text: "payroll month"}, "payroll.txt", "", "25th"},
		{"kb filter", Query{Text: "leave approval", KB: "ops"}, "", "", ""},
		{"kb filter hit", Query{Text: "leave approval", KB: "hr"}, "leave.md", "Leave", "twenty-five"},
		{"prefix filter", Query{Text: "backups", SourcePrefix: filepath.Join(dir, "hr")}, "", "", ""},
		{"tag filter", Query{Text: "unrelated words", Tag: "runbook"}, "", "", ""},
		{"tag filter hit", Query{Text: "gateway", Tag: "runbook"}, "deploy.md", "Operations > Deploy", "gateway"},
		{"within", Query{Text: "payroll month", Within: []string{"ops"}}, "", "", ""},
		{"within hit", Query{Text: "payroll month", Within: []string{"ops", "hr"}}, "payroll.txt", "", "25th"},
		{"within and kb", Query{Text: "leave approval", KB: "hr", Within: []string{"hr"}}, "leave.md", "Leave", "twenty-five"},
		{"no words", Query{Text: " ?! -- "}, "", "", ""},
		{"fts syntax is text", Query{Text: `"gateway AND NEAR( restart* -load ^col:x`}, "deploy.md", "Operations > Deploy", "gateway"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := results(k.Search(t.Context(), tt.q))
			if err != nil {
				t.Fatal(err)
			}
			if tt.source == "" {
				if len(res) != 0 {
					t.Errorf("%d results, want none: %+v", len(res), res)
				}
				return
			}
			if len(res) == 0 {
				t.Fatal("no results")
			}
			r := res[0]
			if filepath.Base(r.Source) != tt.source || r.Heading != tt.heading || !strings.Contains(r.Text, tt.text) || r.LineStart < 1 || r.LineEnd < r.LineStart || r.Score <= 0 || r.BM25 <= 0 {
				t.Errorf("first result %+v, want %s %q containing %q", r, tt.source, tt.heading, tt.text)
			}
		})
	}
	if _, err := results(k.Search(t.Context(), Query{Text: "x", KB: "no such/kb"})); err == nil || !strings.Contains(err.Error(), `"no such/kb"`) {
		t.Errorf("bad kb name: %v", err)
	}
	// A knowledge base outside Within is refused, not searched empty, so
	// a caller limited to some cannot probe the others' contents.
	_, err := results(k.Search(t.Context(), Query{Text: "leave", KB: "hr", Within: []string{"ops"}}))
	if !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), `"hr"`) {
		t.Errorf("kb outside within: %v", err)
	}
}

// TestFuse checks reciprocal rank fusion: a chunk two lists agree on
// outranks one that tops a single list, scores are sums of 1/(k+rank),
// and ties keep first-met order.
func TestFuse(t *testing.T) {
	a := []Ranked{{Chunk: 1, Score: 9}, {Chunk: 2, Score: 5}, {Chunk: 3, Score: 1}}
	b := []Ranked{{Chunk: 2, Score: 0.9}, {Chunk: 3, Score: 0.8}}
	got := Fuse(0, a, b)
	var ids []int64
	for _, r := range got {
		ids = append(ids, r.Chunk)
	}
	if len(ids) != 3 || ids[0] != 2 || ids[1] != 3 || ids[2] != 1 {
		t.Fatalf("order %v, want [2 3 1]", ids)
	}
	if want := 1.0/62 + 1.0/61; math.Abs(got[0].Score-want) > 1e-12 {
		t.Errorf("chunk 2 scores %v, want %v", got[0].Score, want)
	}
	if got := Fuse(1, []Ranked{{Chunk: 7}, {Chunk: 8}}, []Ranked{{Chunk: 8}, {Chunk: 7}}); got[0].Chunk != 7 || got[0].Score != got[1].Score {
		t.Errorf("a tie: %+v, want 7 first", got)
	}
	if got := Fuse(0); len(got) != 0 {
		t.Errorf("no lists: %+v", got)
	}
}

// fixedRanker is a Ranker that always returns the same list, standing
// in for a vector ranker.
type fixedRanker []Ranked

func (f fixedRanker) Rank(context.Context, Query, int) ([]Ranked, error) { return f, nil }

// TestSearchFusesRankers: a further ranker's list is fused with BM25's,
// so a passage only it finds comes back, with no BM25 score.
func TestSearchFusesRankers(t *testing.T) { eachBackend(t, testSearchFusesRankers) }

func testSearchFusesRankers(t *testing.T, backend string) {
	k, _ := searchFixture(t, backend, Options{})
	var leave int64
	if err := k.db.Reader().QueryRow(`SELECT id FROM kb_chunks WHERE text LIKE '%Annual leave%'`).Scan(&leave); err != nil {
		t.Fatal(err)
	}
	k.opts.Rankers = []Ranker{fixedRanker{{Chunk: leave, Score: 0.9}}}
	res, err := results(k.Search(t.Context(), Query{Text: "gateway", Limit: 10}))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res {
		if r.Chunk == leave {
			found = r.BM25 == 0 && r.Score > 0
		}
	}
	if !found {
		t.Errorf("the vector ranker's passage is missing or has a BM25 score: %+v", res)
	}
}

// results drops what Search says beside its passages, for tests that
// look at the passages only.
func results(h Hits, err error) ([]Result, error) { return h.Results, err }
