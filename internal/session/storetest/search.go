package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// corpus is a small set of sessions to search: a billing migration in
// English and Chinese (a), continued in c and again in d, and an
// unrelated cooking chat from another source (b).
type corpus struct {
	a, b, c, d *session.Session
	msg        map[string]*session.Message
}

func seed(t *testing.T, s session.Store) corpus {
	t.Helper()
	var k corpus
	k.a = create(t, s, session.Session{Source: "cli", Title: "Billing migration"})
	k.b = create(t, s, session.Session{Source: "telegram", Title: "Cooking"})
	k.c = create(t, s, session.Session{Source: "cli", ParentID: k.a.ID})
	k.d = create(t, s, session.Session{Source: "cli", ParentID: k.c.ID})
	k.msg = map[string]*session.Message{
		"a_user": userMsg("Please plan the 数据库迁移 for the billing service tonight."),
		"a_asst": assistantMsg("好的。我们先备份数据，然后执行迁移脚本 migrate.sql。"),
		"a_call": callMsg("c1", "terminal", `{"command":"pg_dump billing > backup.sql"}`),
		"a_tool": resultMsg("c1", "terminal", "pg_dump: dumped 1532 rows from billing, 50%_off table skipped"),
		"b_user": userMsg("What is a good recipe for mapo tofu?"),
		"b_asst": assistantMsg("麻婆豆腐需要豆瓣酱和花椒。"),
		"c_user": userMsg("Continue the Kubernetes upgrade for billing"),
		"d_asst": assistantMsg("The kubernetes nodes are drained; 迁移完成。"),
	}
	appendMsgs(t, s, k.a.ID, k.msg["a_user"], k.msg["a_asst"], k.msg["a_call"], k.msg["a_tool"])
	appendMsgs(t, s, k.b.ID, k.msg["b_user"], k.msg["b_asst"])
	appendMsgs(t, s, k.c.ID, k.msg["c_user"])
	appendMsgs(t, s, k.d.ID, k.msg["d_asst"])
	return k
}

// search runs a query and fails the test if it errors.
func search(t *testing.T, s session.Store, q string, opt session.SearchOptions) []session.Hit {
	t.Helper()
	hits, err := s.Search(ctx(t), q, opt)
	if err != nil {
		t.Fatalf("Search(%q, %+v): %v", q, opt, err)
	}
	return hits
}

// expect fails the test unless query finds exactly the named messages.
func (k corpus) expect(t *testing.T, s session.Store, q string, opt session.SearchOptions, names ...string) []session.Hit {
	t.Helper()
	hits := search(t, s, q, opt)
	var got, want []string
	for _, h := range hits {
		got = append(got, k.name(h.MessageID))
	}
	want = append(want, names...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Search(%q, %+v) found %v, want %v", q, opt, got, want)
	}
	return hits
}

func (k corpus) name(id int64) string {
	for n, m := range k.msg {
		if m.ID == id {
			return n
		}
	}
	return "?"
}

// snippetHas fails the test unless each hit's snippet shows the query:
// the word (any case) or, for CJK, each of its characters (a store may
// put highlight marks between them).
func snippetHas(t *testing.T, q string, hits []session.Hit) {
	t.Helper()
	for _, h := range hits {
		if strings.Contains(strings.ToLower(h.Snippet), strings.ToLower(q)) {
			continue
		}
		for _, r := range q {
			if !strings.ContainsRune(h.Snippet, r) {
				t.Errorf("Search(%q): snippet %q of message %d does not show the match", q, h.Snippet, h.MessageID)
				break
			}
		}
	}
}

func testSearchWords(t *testing.T, s session.Store) {
	k := seed(t, s)
	hits := k.expect(t, s, "billing", session.SearchOptions{}, "a_user", "a_call", "a_tool", "c_user")
	snippetHas(t, "billing", hits)
	for _, h := range hits {
		want := k.msg[k.name(h.MessageID)]
		if h.SessionID != want.SessionID || h.Role != want.Role || h.ToolName != want.Name ||
			!h.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("hit %+v does not describe its message %+v", h, *want)
		}
		if h.SessionID == k.a.ID && h.SessionTitle != "Billing migration" {
			t.Errorf("hit in session a has SessionTitle %q", h.SessionTitle)
		}
	}
	k.expect(t, s, "kubernetes UPGRADE", session.SearchOptions{}, "c_user")
	k.expect(t, s, "recipe", session.SearchOptions{}, "b_user")
	k.expect(t, s, "recipe OR drained", session.SearchOptions{}, "b_user", "d_asst")
	k.expect(t, s, `"mapo tofu"`, session.SearchOptions{}, "b_user")
	k.expect(t, s, "1532", session.SearchOptions{}, "a_tool")
	k.expect(t, s, "pg_dump", session.SearchOptions{}, "a_call", "a_tool")
	k.expect(t, s, "nonexistentword", session.SearchOptions{})
	if hits := search(t, s, "billing", session.SearchOptions{Limit: 2}); len(hits) != 2 {
		t.Errorf("Search(billing, limit 2) returned %d hits", len(hits))
	}
}

func testSearchRanking(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{Source: "cli"})
	dense := userMsg("zephyr zephyr: the zephyr release")
	sparse := userMsg("A long message that mentions zephyr once among many other words about " +
		"deployments, databases, dashboards, alerts, backups, certificates and the weather.")
	twinOld := assistantMsg("quokka")
	twinNew := assistantMsg("quokka")
	appendMsgs(t, s, sess.ID, dense, sparse, twinOld, userMsg("unrelated"))
	appendMsgs(t, s, sess.ID, twinNew)
	hits := search(t, s, "zephyr", session.SearchOptions{})
	if len(hits) != 2 || hits[0].MessageID != dense.ID {
		t.Errorf("Search(zephyr) = %+v, want the message dense with it first", hits)
	}
	hits = search(t, s, "quokka", session.SearchOptions{})
	if len(hits) != 2 || hits[0].MessageID != twinNew.ID {
		t.Errorf("Search(quokka) = %+v, want the newer of two equal matches first", hits)
	}
}

func testSearchChinese(t *testing.T, s session.Store) {
	k := seed(t, s)
	snippetHas(t, "数据库迁移", k.expect(t, s, "数据库迁移", session.SearchOptions{}, "a_user"))
	snippetHas(t, "迁移", k.expect(t, s, "迁移", session.SearchOptions{}, "a_user", "a_asst", "d_asst"))
	snippetHas(t, "豆瓣酱", k.expect(t, s, "豆瓣酱", session.SearchOptions{}, "b_asst"))
	k.expect(t, s, "花", session.SearchOptions{}, "b_asst")
	k.expect(t, s, "billing 数据库", session.SearchOptions{}, "a_user")
	k.expect(t, s, "迁移 kubernetes", session.SearchOptions{}, "d_asst")
	k.expect(t, s, "迁移完成 OR 豆腐", session.SearchOptions{}, "d_asst", "b_asst")
	k.expect(t, s, "火锅", session.SearchOptions{})
}

func testSearchSubstring(t *testing.T, s session.Store) {
	k := seed(t, s)
	snippetHas(t, "ubernete", k.expect(t, s, "ubernete", session.SearchOptions{}, "c_user", "d_asst"))
	k.expect(t, s, "igrate.sq", session.SearchOptions{}, "a_asst")
	k.expect(t, s, "bill*", session.SearchOptions{}, "a_user", "a_call", "a_tool", "c_user")
	// LIKE wildcards in the query are literal characters.
	k.expect(t, s, "0%_o", session.SearchOptions{}, "a_tool")
	k.expect(t, s, "l_ng", session.SearchOptions{})
	k.expect(t, s, "i%g", session.SearchOptions{})
}

func testSearchSyntax(t *testing.T, s session.Store) {
	seed(t, s)
	for _, q := range []string{
		`"billing`, `billing"`, `*`, `AND`, `billing AND`, `-billing`, `NOT billing`,
		`NEAR(billing`, `billing OR`, `OR OR`, `(`, `)`, `^billing`, `content:billing`,
		`'`, `\`, `%`, `_`, `"" ""`, `数据库"迁移`, `+`, `{}`, `a*b*`, `*billing`,
		`"billing" AND "" OR ("kubernetes"`, "\x00", "bill\ting", "   ", "",
	} {
		if _, err := s.Search(ctx(t), q, session.SearchOptions{}); err != nil {
			t.Errorf("Search(%q): %v", q, err)
		}
	}
}

func testSearchFilters(t *testing.T, s session.Store) {
	k := seed(t, s)
	k.expect(t, s, "billing", session.SearchOptions{SessionID: k.c.ID}, "c_user")
	k.expect(t, s, "billing", session.SearchOptions{Role: llm.RoleUser}, "a_user", "c_user")
	k.expect(t, s, "billing", session.SearchOptions{Role: llm.RoleTool}, "a_tool")
	k.expect(t, s, "迁移", session.SearchOptions{SessionID: k.d.ID}, "d_asst")
	k.expect(t, s, "迁移", session.SearchOptions{Role: llm.RoleAssistant}, "a_asst", "d_asst")
	k.expect(t, s, "迁移", session.SearchOptions{Source: "telegram"})
	k.expect(t, s, "豆瓣酱", session.SearchOptions{Source: "telegram"}, "b_asst")
	k.expect(t, s, "ubernete", session.SearchOptions{SessionID: k.d.ID}, "d_asst")
}

func testSearchLineage(t *testing.T, s session.Store) {
	k := seed(t, s)
	for _, q := range []string{"kubernetes", "billing", "迁移"} {
		for _, h := range search(t, s, q, session.SearchOptions{}) {
			if h.RootID != k.a.ID {
				t.Errorf("Search(%q): hit in session %s has RootID %s, want %s", q, h.SessionID, h.RootID, k.a.ID)
			}
		}
	}
	for _, h := range search(t, s, "tofu", session.SearchOptions{}) {
		if h.RootID != k.b.ID {
			t.Errorf("Search(tofu): RootID %s, want the session itself %s", h.RootID, k.b.ID)
		}
	}
}
