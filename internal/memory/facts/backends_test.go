package facts

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestConcurrentAddsStoreOnce has two handles on one database (two
// replicas) add the same facts at the same moment from many goroutines:
// each fact must be stored once. On PostgreSQL, READ COMMITTED lets two
// duplicate checks run before either insert commits; the owner's
// advisory lock queues them.
func TestConcurrentAddsStoreOnce(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		stores := []*Store{openTarget(t, x, Options{}), openTarget(t, x, Options{})}
		ctx := context.Background()
		const rounds, writers = 10, 8
		for r := range rounds {
			fact := Fact{Kind: KindFact, Content: fmt.Sprintf("The deploy of round %d runs from the staging branch.", r)}
			contained := Fact{Kind: KindFact, Content: fmt.Sprintf("The deploy of round %d runs from the staging branch every night.", r)}
			start := make(chan struct{})
			var wg sync.WaitGroup
			for w := range writers {
				s := stores[w%2].For("alice")
				f := fact
				if w%4 == 3 {
					f = contained
				}
				wg.Go(func() {
					<-start
					if _, err := s.Add(ctx, []Fact{f}); err != nil {
						t.Errorf("Add: %v", err)
					}
				})
			}
			close(start)
			wg.Wait()
		}
		fs, err := stores[0].For("alice").List(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != rounds {
			var got []string
			for _, f := range fs {
				got = append(got, f.Content)
			}
			t.Errorf("%d facts stored, want %d (one per round):\n%s", len(fs), rounds, strings.Join(got, "\n"))
		}
	})
}

// TestAddUnstorableText adds facts holding NUL bytes and invalid UTF-8,
// which a model's output may carry and PostgreSQL's text refuses: they
// are stored (as U+FFFD there) and found by their words.
func TestAddUnstorableText(t *testing.T) { eachBackend(t, testAddUnstorableText) }

func testAddUnstorableText(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := context.Background()
	n, err := s.Add(ctx, []Fact{
		{Kind: KindFact, Subject: "nul\x00subject", Content: "The build cache lives in /var/cache\x00ci.", SourceSession: "s\x001"},
		{Kind: KindFact, Content: "The invoice template is latin1 \xff\xfe encoded."},
	})
	if err != nil || n != 2 {
		t.Fatalf("Add = %d, %v; want 2 added", n, err)
	}
	for _, q := range []string{"cache", "invoice"} {
		got, err := s.Search(ctx, q, 5)
		if err != nil || len(got) != 1 {
			t.Errorf("Search(%q) = %+v, %v; want the fact", q, got, err)
		}
	}
}

// TestBackendsRankAlike searches one corpus on both backends with
// English words, CJK text and two-character CJK words: each query's top
// five must be the same facts in the same order, since both backends
// match the same terms and rank.go scores them alike.
func TestBackendsRankAlike(t *testing.T) {
	if len(dbtest.Backends()) < 2 {
		t.Skip("needs both backends")
	}
	corpus := rankCorpus()
	queries := []string{
		"deploy production", "backup database nightly", "weekly report", "staging cluster migration",
		"部署", "数据库", "生产环境部署", "每周一的周报", "测试环境 backup",
	}
	top := map[string]map[string][]string{}
	for _, b := range dbtest.Backends() {
		s := openTemp(t, b)
		mustAdd(t, s, corpus...)
		top[b] = map[string][]string{}
		for _, q := range queries {
			got, err := s.Search(context.Background(), q, 5)
			if err != nil {
				t.Fatalf("%s: Search(%q): %v", b, q, err)
			}
			for _, f := range got {
				top[b][q] = append(top[b][q], f.Content)
			}
		}
	}
	for _, q := range queries {
		lite, pg := top["sqlite"][q], top["postgres"][q]
		if len(lite) == 0 {
			t.Errorf("Search(%q) found nothing on sqlite; the corpus should answer it", q)
		}
		if !slices.Equal(lite, pg) {
			t.Errorf("Search(%q):\nsqlite:   %q\npostgres: %q", q, lite, pg)
		}
	}
}

// rankCorpus is facts in English and Chinese sharing words in varying
// amounts, so ranking decides the order.
func rankCorpus() []Fact {
	en := []string{
		"The user deploys to production every Friday after the staging checks pass.",
		"Backups of the billing database run nightly at 02:00.",
		"The weekly report goes to the finance team on Monday.",
		"The staging cluster migration to Kubernetes finished in March.",
		"Production incidents are reported in the #ops channel.",
		"The nightly database backup is copied to a second region.",
		"The user prefers concise weekly summaries over long reports.",
		"Deploy scripts live in the infra repository.",
		"The migration of the reporting database is planned for Q3.",
		"The cluster in staging has three nodes.",
	}
	zh := []string{
		"用户每周五部署到生产环境。",
		"数据库每晚备份一次。",
		"每周一的周报发给财务团队。",
		"测试环境的部署脚本在 infra 仓库里。",
		"生产环境的数据库是 PostgreSQL。",
		"部署前需要代码评审。",
		"周报要简洁。",
	}
	var out []Fact
	for _, c := range append(en, zh...) {
		out = append(out, Fact{Kind: KindFact, Content: c})
	}
	return out
}
