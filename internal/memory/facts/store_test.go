package facts

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// openTemp opens a store on a new, empty database of backend.
func openTemp(t testing.TB, backend string) *Store {
	t.Helper()
	return openOn(t, backend, Options{})
}

// openOn opens a new, empty database of backend and the fact store over
// it with opt; the database is closed when the test ends.
func openOn(t testing.TB, backend string, opt Options) *Store {
	t.Helper()
	return New(dbtest.Open(t, backend), opt)
}

// openTarget opens the database at x, as a process does, and the fact
// store over it; the database is closed when the test ends.
func openTarget(t testing.TB, x dbtest.Target, opt Options) *Store {
	t.Helper()
	return New(x.Open(t), opt)
}

// mustAdd adds facts and fails the test on error.
func mustAdd(t testing.TB, s *Store, fs ...Fact) int {
	t.Helper()
	n, err := s.Add(context.Background(), fs)
	if err != nil {
		t.Fatalf("Add: %v", err)
	}
	return n
}

func TestAddListForget(t *testing.T) { eachBackend(t, testAddListForget) }

func testAddListForget(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := context.Background()
	n := mustAdd(t, s,
		Fact{Kind: KindPreference, Subject: "answer language", Content: "The user wants answers in Chinese.", SourceSession: "s1"},
		Fact{Kind: KindDecision, Subject: "部署", Content: "部署到生产环境前必须先跑完整的集成测试。", SourceSession: "s1"},
	)
	if n != 2 {
		t.Fatalf("added %d, want 2", n)
	}
	fs, err := s.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 {
		t.Fatalf("List: %d facts, want 2", len(fs))
	}
	// Newest first: both share a timestamp, so the higher id comes first.
	if fs[0].Kind != KindDecision || fs[1].Content != "The user wants answers in Chinese." {
		t.Errorf("List order/content wrong: %+v", fs)
	}
	if fs[1].SourceSession != "s1" || fs[1].CreatedAt.IsZero() || !fs[1].LastUsedAt.IsZero() || fs[1].Uses != 0 {
		t.Errorf("stored fields wrong: %+v", fs[1])
	}
	if one, _ := s.List(ctx, 1); len(one) != 1 {
		t.Errorf("List(1) returned %d facts", len(one))
	}

	if err := s.Forget(ctx, fs[0].ID); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if err := s.Forget(ctx, fs[0].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Forget of a forgotten fact: %v, want ErrNotFound", err)
	}
	if got, _ := s.Search(ctx, "部署", 5); len(got) != 0 {
		t.Errorf("forgotten fact still found: %+v", got)
	}
	if got, _ := s.List(ctx, 0); len(got) != 1 {
		t.Errorf("after Forget, %d facts, want 1", len(got))
	}
}

func TestAddRejectsBadFacts(t *testing.T) { eachBackend(t, testAddRejectsBadFacts) }

func testAddRejectsBadFacts(t *testing.T, backend string) {
	s := openTemp(t, backend)
	for _, tc := range []struct {
		name string
		f    Fact
		want string
	}{
		{"kind", Fact{Kind: "rumour", Content: "x"}, `facts[1].kind: "rumour"`},
		{"empty", Fact{Kind: KindFact, Content: "  \n "}, "facts[1].content: empty"},
		{"long", Fact{Kind: KindFact, Content: strings.Repeat("长", 501)}, "facts[1].content: 501 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := s.Add(context.Background(), []Fact{{Kind: KindFact, Content: "A valid fact that must not be stored either."}, tc.f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Add: %v, want an error containing %q", err, tc.want)
			}
			if n != 0 {
				t.Errorf("added %d on error", n)
			}
			if fs, _ := s.List(context.Background(), 0); len(fs) != 0 {
				t.Errorf("a failed Add stored %d facts", len(fs))
			}
		})
	}
}

func TestAddMergesNearDuplicates(t *testing.T) { eachBackend(t, testAddMergesNearDuplicates) }

func testAddMergesNearDuplicates(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := context.Background()
	mustAdd(t, s, Fact{Kind: KindPreference, Subject: "language", Content: "The user wants answers in Chinese.", SourceSession: "s1"})

	cases := []struct {
		name  string
		f     Fact
		added int
	}{
		{"same words, other case and punctuation", Fact{Kind: KindPreference, Content: "the user wants answers in chinese", SourceSession: "s2"}, 0},
		{"contained in a longer one", Fact{Kind: KindPreference, Content: "The user wants answers in Chinese, even for code reviews.", SourceSession: "s3"}, 0},
		{"contains the stored one", Fact{Kind: KindPreference, Content: "wants answers in Chinese", SourceSession: "s4"}, 0},
		{"different fact", Fact{Kind: KindPreference, Content: "The user wants answers in English for emails.", SourceSession: "s5"}, 1},
	}
	for _, tc := range cases {
		if n := mustAdd(t, s, tc.f); n != tc.added {
			t.Errorf("%s: added %d, want %d", tc.name, n, tc.added)
		}
	}
	fs, _ := s.List(ctx, 0)
	if len(fs) != 2 {
		t.Fatalf("%d facts after merging, want 2: %+v", len(fs), fs)
	}
	merged := fs[1]
	if merged.Content != "The user wants answers in Chinese, even for code reviews." {
		t.Errorf("merge kept %q, want the longer wording", merged.Content)
	}
	if merged.SourceSession != "s4" {
		t.Errorf("merged source %q, want the last confirming session s4", merged.SourceSession)
	}
	if merged.Subject != "language" {
		t.Errorf("merge lost the subject: %q", merged.Subject)
	}
	// The index follows the merged wording.
	if got, _ := s.Search(ctx, "reviews", 5); len(got) != 1 || got[0].ID != merged.ID {
		t.Errorf("search for the merged wording: %+v", got)
	}
	// CJK text merges by characters.
	mustAdd(t, s, Fact{Kind: KindDecision, Content: "部署到生产环境前必须跑集成测试。"})
	if n := mustAdd(t, s, Fact{Kind: KindDecision, Content: "部署到生产环境前必须跑集成测试并经过审批"}); n != 0 {
		t.Errorf("a longer CJK wording added %d, want a merge", n)
	}
	if n := mustAdd(t, s, Fact{Kind: KindDecision, Content: "部署到测试环境前不需要审批。"}); n != 1 {
		t.Errorf("a different CJK fact added %d, want 1", n)
	}
	// Duplicates within one call merge too.
	if n := mustAdd(t, s,
		Fact{Kind: KindFact, Content: "The project deploys with Kubernetes on GKE."},
		Fact{Kind: KindFact, Content: "The project deploys with Kubernetes on GKE!"}); n != 1 {
		t.Errorf("two equal facts in one call added %d, want 1", n)
	}
}

func TestSearch(t *testing.T) { eachBackend(t, testSearch) }

func testSearch(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := context.Background()
	mustAdd(t, s,
		Fact{Kind: KindPreference, Subject: "answer language", Content: "The user wants answers in Chinese."},
		Fact{Kind: KindDecision, Subject: "部署流程", Content: "部署到生产环境前必须先跑完整的集成测试。"},
		Fact{Kind: KindFact, Subject: "database", Content: "The main service runs PostgreSQL 16 on Debian."},
		Fact{Kind: KindPattern, Subject: "weekly report", Content: "Every Monday the user asks for a sales report with year-over-year figures."},
		Fact{Kind: KindFact, Subject: "数据库", Content: "用户的数据库是 PostgreSQL，部署在阿里云上。"},
	)
	for _, tc := range []struct {
		query string
		first string // a substring of the best fact's content
		n     int    // how many facts match
	}{
		{"postgresql", "", 2}, // a tie: newest first
		{"PostgreSQL database", "PostgreSQL 16", 2},
		{"answer", "answers in Chinese", 1}, // stem matches "answers"
		{"reports", "sales report", 1},
		{"生产环境", "集成测试", 1},
		{"部署", "阿里云", 2}, // a tie: newest first
		{"库", "阿里云", 1},  // one CJK character
		{"阿里云 postgres", "阿里云", 2},
		{"kubernetes", "", 0},
		{"the", "", 0}, // stop words only
		{"", "", 0},
	} {
		got, err := s.Search(ctx, tc.query, 10)
		if err != nil {
			t.Errorf("Search(%q): %v", tc.query, err)
			continue
		}
		if len(got) != tc.n {
			t.Errorf("Search(%q): %d results, want %d: %+v", tc.query, len(got), tc.n, got)
			continue
		}
		if tc.n > 0 && !strings.Contains(got[0].Content, tc.first) {
			t.Errorf("Search(%q): best is %q, want one containing %q", tc.query, got[0].Content, tc.first)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Coverage > got[i-1].Coverage {
				t.Errorf("Search(%q): results out of order: %+v", tc.query, got)
			}
		}
	}
}

// TestSearchSyntaxCharacters types FTS5 syntax at the store: none of it
// may reach FTS5 unquoted.
func TestSearchSyntaxCharacters(t *testing.T) { eachBackend(t, testSearchSyntaxCharacters) }

func testSearchSyntaxCharacters(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := context.Background()
	mustAdd(t, s, Fact{Kind: KindFact, Content: "The user's near-term goal is migrating the CI to GitHub Actions."})
	for _, q := range []string{
		`"`, `""`, `"unbalanced`, `*`, `near*`, `NEAR(`, `NEAR(goal migrating, 2)`, `-`, `-goal`,
		`goal -ci`, `AND OR NOT`, `goal AND`, `(goal`, `goal)`, `^goal`, `goal:`, `subject:goal`,
		`{goal}`, `goal + ci`, `"goal" "ci"`, "goal\x00ci", `'; DROP TABLE facts; --`, `%_\`,
	} {
		if _, err := s.Search(ctx, q, 5); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
		if _, err := Recall(ctx, s, q, 5); err != nil {
			t.Errorf("Recall(%q): %v", q, err)
		}
	}
	if got, err := s.Search(ctx, `NEAR(goal`, 5); err != nil || len(got) != 1 {
		t.Errorf(`Search("NEAR(goal") = %d results, %v; want the fact`, len(got), err)
	}
}

func TestMarkUsed(t *testing.T) { eachBackend(t, testMarkUsed) }

func testMarkUsed(t *testing.T, backend string) {
	clk := clock.NewFake(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	s := openOn(t, backend, Options{Clock: clk})
	ctx := context.Background()
	mustAdd(t, s, Fact{Kind: KindFact, Content: "The user's laptop runs Fedora 43."})
	fs, _ := s.List(ctx, 0)
	clk.Advance(time.Hour)
	now := clk.Now()
	if err := s.MarkUsed(ctx, []int64{fs[0].ID, fs[0].ID, 999}); err != nil {
		t.Fatalf("MarkUsed: %v", err)
	}
	fs, _ = s.List(ctx, 0)
	if fs[0].Uses != 2 || !fs[0].LastUsedAt.Equal(now) {
		t.Errorf("after MarkUsed: uses %d, last used %v; want 2 and %v", fs[0].Uses, fs[0].LastUsedAt, now)
	}
}

// TestFactsOfOneOwner: a user's facts are theirs alone. The same fact
// told by two users is two facts; one user's search, CJK scan, list and
// recall find nothing of another's or of the shared ones, and one cannot
// forget another's by its id.
func TestFactsOfOneOwner(t *testing.T) { eachBackend(t, testFactsOfOneOwner) }

func testFactsOfOneOwner(t *testing.T, backend string) {
	s := openTemp(t, backend)
	ctx := t.Context()
	ana, bob := s.For("ana"), s.For("bob")
	mustAdd(t, ana, Fact{Kind: KindFact, Subject: "vault", Content: "The vault code of acme is 4711"},
		Fact{Kind: KindFact, Content: "ana 的项目代号是金桔"})
	mustAdd(t, bob, Fact{Kind: KindFact, Subject: "vault", Content: "The vault code of acme is 4711"})
	mustAdd(t, s, Fact{Kind: KindFact, Content: "The owner's vault is in the basement"})
	for _, q := range []string{"vault code", "金桔", "basement"} {
		found, err := bob.Search(ctx, q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range found {
			if strings.Contains(f.Content, "金桔") || strings.Contains(f.Content, "basement") {
				t.Errorf("bob's search %q found %q", q, f.Content)
			}
		}
	}
	if found, _ := bob.Search(ctx, "vault code", 10); len(found) != 1 {
		t.Errorf("bob's own fact: %+v", found)
	}
	all, _ := ana.List(ctx, 0)
	if len(all) != 2 {
		t.Fatalf("ana's facts: %+v", all)
	}
	if err := bob.Forget(ctx, all[0].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob forgot ana's fact: %v", err)
	}
	if shared, _ := s.List(ctx, 0); len(shared) != 1 || !strings.Contains(shared[0].Content, "basement") {
		t.Errorf("the shared facts: %+v", shared)
	}
	if got, _ := Recall(ctx, bob, "what is the vault code of acme?", 5); len(got) != 1 || got[0].Content != "The vault code of acme is 4711" {
		t.Errorf("bob's recall: %+v", got)
	}
}
