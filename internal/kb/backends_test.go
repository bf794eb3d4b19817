package kb

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestConcurrentIngestOfOneSource has two handles on one database (two
// replicas) ingest the same folder into a new knowledge base at once,
// again and again with the files changing: every ingest succeeds, the
// knowledge base and each source exist once, and each source holds the
// chunks of one ingest, not two ingests' mixed. On PostgreSQL, READ
// COMMITTED lets both create the knowledge base (a unique violation) and
// both replace one source's chunks; the advisory lock queues them.
func TestConcurrentIngestOfOneSource(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		ks := []*KB{openKBOn(t, x.Open(t), Options{}), openKBOn(t, x.Open(t), Options{})}
		dir := t.TempDir()
		const rounds = 6
		for r := range rounds {
			files := map[string]string{}
			for i := range 4 {
				files[fmt.Sprintf("doc%d.md", i)] = fmt.Sprintf("# Doc %d\n\nRound %d of the deploy notes.\n\n## More\n\n%s\n", i, r, strings.Repeat("Filler text for the chunker. ", 10*(r+1)))
			}
			writeFiles(t, dir, files)
			kb := fmt.Sprintf("kb%d", r%2)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for w := range 4 {
				k := ks[w%2]
				wg.Go(func() {
					<-start
					rep, err := k.Add(t.Context(), AddRequest{KB: kb, Sources: []string{dir}})
					if err != nil || len(rep.Failed()) > 0 {
						t.Errorf("round %d: Add: %v %+v", r, err, rep.Failed())
					}
				})
			}
			close(start)
			wg.Wait()
		}
		db := ks[0].db.Reader()
		var bases, sources, dupes int
		db.QueryRow(`SELECT count(*) FROM kb_bases`).Scan(&bases)
		db.QueryRow(`SELECT count(*) FROM kb_sources`).Scan(&sources)
		// A source's chunks from two ingests would repeat an ordinal.
		db.QueryRow(`SELECT count(*) FROM (SELECT source, ordinal FROM kb_chunks GROUP BY source, ordinal HAVING count(*) > 1) AS d`).Scan(&dupes)
		if bases != 2 || sources != 8 || dupes != 0 {
			t.Errorf("%d knowledge bases, %d sources, %d repeated chunks; want 2, 8, 0", bases, sources, dupes)
		}
	})
}

// TestIngestUnstorableText ingests a file whose text holds NUL bytes and
// invalid UTF-8 and whose name is invalid UTF-8, which PostgreSQL's text
// refuses: it is stored (with U+FFFD there), found by its words, and
// found unchanged when added again.
func TestIngestUnstorableText(t *testing.T) { eachBackend(t, testIngestUnstorableText) }

func testIngestUnstorableText(t *testing.T, backend string) {
	k := openKB(t, backend, Options{})
	dir := t.TempDir()
	name := filepath.Join(dir, "legacy-\xff\xfe.txt")
	if err := os.WriteFile(name, []byte("Rotation keys\x00 live in the vault.\nLatin1 caf\xe9 menu and the \xff\xfe marker.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []Status{Added, Unchanged} {
		rep, err := k.Add(t.Context(), AddRequest{Sources: []string{name}})
		if err != nil || len(rep.Sources) != 1 || rep.Sources[0].Status != want {
			t.Fatalf("Add #%d: %v %+v; want %v", i+1, err, rep.Sources, want)
		}
	}
	hits, err := k.Search(t.Context(), Query{Text: "vault rotation"})
	if err != nil || len(hits.Results) != 1 {
		t.Fatalf("Search = %+v, %v; want the file's chunk", hits.Results, err)
	}
	if _, err := k.Remove(t.Context(), "", name); err != nil {
		t.Errorf("Remove(%q): %v", name, err)
	}
}

// TestTwoCharacterCJK searches for two-character Chinese words, which
// have no trigram for pg_trgm (nor for SQLite's trigram index): each
// finds its passage on both backends, as text and as a heading.
func TestTwoCharacterCJK(t *testing.T) { eachBackend(t, testTwoCharacterCJK) }

func testTwoCharacterCJK(t *testing.T, backend string) {
	k := openKB(t, backend, Options{})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"deploy.md":  "# 运维手册\n\n生产环境的部署在每周五进行，先做代码评审。\n",
		"budget.md":  "# 预算\n\n今年的市场预算是一百万。\n",
		"english.md": "# Deploy\n\nThe deploy runs on Fridays.\n",
	})
	if _, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"部署": "deploy.md", "预算": "budget.md", "评审": "deploy.md", "运维": "deploy.md"} {
		hits, err := k.Search(t.Context(), Query{Text: q})
		if err != nil || len(hits.Results) == 0 || filepath.Base(hits.Results[0].Source) != want {
			t.Errorf("Search(%q) = %+v, %v; want %s first", q, hits.Results, err, want)
		}
	}
}

// TestVectorExtension: the pgvector probe answers on both backends
// (false on SQLite, whatever the server has on PostgreSQL).
func TestVectorExtension(t *testing.T) { eachBackend(t, testVectorExtension) }

func testVectorExtension(t *testing.T, backend string) {
	ok, err := openKB(t, backend, Options{}).VectorExtension(t.Context())
	if err != nil || backend == "sqlite" && ok {
		t.Errorf("VectorExtension = %v, %v", ok, err)
	}
	t.Logf("%s: pgvector available: %v", backend, ok)
}

// TestBackendsRankAlike searches one corpus on both backends with
// English words, CJK text and two-character CJK words: each query's top
// five passages must be the same set on both.
func TestBackendsRankAlike(t *testing.T) {
	if len(dbtest.Backends()) < 2 {
		t.Skip("needs both backends")
	}
	queries := []string{
		"deploy production friday", "database backup", "weekly report finance", "staging cluster migration",
		"what is the budget of the marketing team", "部署", "数据库", "生产环境的部署", "每周的周报", "预算", "项目alpha的负责人",
	}
	top := map[string]map[string][]string{}
	for _, b := range dbtest.Backends() {
		k := openKB(t, b, Options{})
		dir := t.TempDir()
		writeFiles(t, dir, rankCorpus())
		if _, err := k.Add(t.Context(), AddRequest{Sources: []string{dir}}); err != nil {
			t.Fatal(err)
		}
		top[b] = map[string][]string{}
		for _, q := range queries {
			hits, err := k.Search(t.Context(), Query{Text: q, Limit: 5})
			if err != nil {
				t.Fatalf("%s: Search(%q): %v", b, q, err)
			}
			for _, r := range hits.Results {
				top[b][q] = append(top[b][q], fmt.Sprintf("%s:%d", filepath.Base(r.Source), r.LineStart))
			}
			slices.Sort(top[b][q])
		}
	}
	for _, q := range queries {
		lite, pg := top["sqlite"][q], top["postgres"][q]
		if len(lite) == 0 {
			t.Errorf("Search(%q) found nothing on sqlite; the corpus should answer it", q)
		}
		if !slices.Equal(lite, pg) {
			t.Errorf("Search(%q), top five:\nsqlite:   %q\npostgres: %q", q, lite, pg)
		}
	}
}

// rankCorpus is documents in English and Chinese sharing words in
// varying amounts, so that ranking decides the top five.
func rankCorpus() map[string]string {
	files := map[string]string{}
	en := []string{
		"The team deploys to production every Friday after the staging checks pass.",
		"Backups of the billing database run nightly; the database backup is copied to a second region.",
		"The weekly report goes to the finance team on Monday, with the budget figures.",
		"The staging cluster migration to Kubernetes finished in March.",
		"Production incidents are reported in the ops channel and reviewed weekly.",
		"The budget of the marketing team is two hundred thousand this year.",
		"Deploy scripts live in the infra repository; production deploys need two approvals.",
		"The migration of the reporting database is planned for the third quarter.",
		"The cluster in staging has three nodes and one database replica.",
		"Friday is the deploy day; nobody deploys to production on Monday.",
	}
	zh := []string{
		"团队每周五部署到生产环境。",
		"数据库每晚备份一次，备份保存在另一个区域。",
		"每周一的周报发给财务团队，附上预算。",
		"测试环境的部署脚本在仓库里。",
		"生产环境的数据库是 PostgreSQL，部署在云上。",
		"部署前需要代码评审。",
		"项目alpha的负责人是张三，预算是五十万。",
		"市场团队的预算今年增加了。",
	}
	for i, s := range en {
		files[fmt.Sprintf("en%02d.md", i)] = fmt.Sprintf("# Notes %d\n\n%s\n\n## Details\n\n%s\n", i, s, en[(i+3)%len(en)])
	}
	for i, s := range zh {
		files[fmt.Sprintf("zh%02d.md", i)] = fmt.Sprintf("# 笔记%d\n\n%s\n\n## 细节\n\n%s\n", i, s, zh[(i+2)%len(zh)])
	}
	return files
}
