package audit_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/audit"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/tool"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// TestFind: entries come back newest first, filtered by user, tenant,
// tool, approval and time, on both backends.
func TestFind(t *testing.T) { dbtest.Each(t, testFind) }

func testFind(t *testing.T, db sqldb.DB) {
	fake := clock.NewFake(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC))
	l := audit.New(db, fake)
	for _, c := range []struct{ user, tenant, tool, approval string }{
		{"ana", "acme", "terminal", "person"},
		{"bob", "globex", "terminal", "denied"},
		{"ana", "acme", "read_file", ""},
	} {
		fake.Advance(time.Hour)
		err := l.Record(t.Context(), tool.Audited{Invocation: tool.Invocation{User: c.user, Tenant: c.tenant, SessionID: "s-" + c.user},
			Name: c.tool, Args: `{"x":1}`, Outcome: tool.Outcome{Result: tool.Result{Status: tool.StatusOK}, Duration: 1500 * time.Millisecond}, Approval: c.approval})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		q    audit.Query
		want []string // tools, newest first
	}{
		{audit.Query{}, []string{"read_file", "terminal", "terminal"}},
		{audit.Query{User: "ana"}, []string{"read_file", "terminal"}},
		{audit.Query{Tenant: "globex"}, []string{"terminal"}},
		{audit.Query{Tool: "read_file"}, []string{"read_file"}},
		{audit.Query{Approval: "denied"}, []string{"terminal"}},
		{audit.Query{Since: fake.Now().Add(-90 * time.Minute)}, []string{"read_file", "terminal"}},
		{audit.Query{Limit: 1}, []string{"read_file"}},
	} {
		got, err := l.Find(t.Context(), tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var tools []string
		for _, e := range got {
			tools = append(tools, e.Tool)
		}
		if len(tools) != len(tc.want) || (len(tools) > 0 && tools[0] != tc.want[0]) {
			t.Errorf("Find(%+v) = %v, want %v", tc.q, tools, tc.want)
		}
	}
	got, _ := l.Find(t.Context(), audit.Query{Tenant: "globex"})
	if e := got[0]; e.User != "bob" || e.SessionID != "s-bob" || e.DurationMS != 1500 || e.Status != "ok" || e.Approval != "denied" {
		t.Errorf("entry = %+v", e)
	}
}

// TestPrune: entries older than the cut go, newer ones stay, on both
// backends.
func TestPrune(t *testing.T) { dbtest.Each(t, testPrune) }

func testPrune(t *testing.T, db sqldb.DB) {
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l := audit.New(db, fake)
	for range 3 {
		if err := l.Record(t.Context(), tool.Audited{Name: "terminal"}); err != nil {
			t.Fatal(err)
		}
		fake.Advance(24 * time.Hour)
	}
	n, err := l.Prune(t.Context(), time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC))
	left, _ := l.Find(t.Context(), audit.Query{})
	if err != nil || n != 2 || len(left) != 1 {
		t.Errorf("pruned %d (%v), %d left; want 2 and 1", n, err, len(left))
	}
}

// TestUnsafeText: a call whose arguments, reason or names hold NUL bytes
// or invalid UTF-8 (a model's output, a binary file's bytes) is logged on
// both backends, each bad byte as U+FFFD, and found by its session.
func TestUnsafeText(t *testing.T) { dbtest.Each(t, testUnsafeText) }

func testUnsafeText(t *testing.T, db sqldb.DB) {
	l := audit.New(db, clock.NewFake(time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)))
	bad := "a\x00b\xffc\xc3"
	err := l.Record(t.Context(), tool.Audited{
		Invocation: tool.Invocation{SessionID: "s" + bad, User: "u" + bad, Tenant: "t" + bad, Source: "cli" + bad, Agent: "g" + bad},
		Name:       "write_file" + bad, Args: `{"content":"` + bad + `"}`, Approval: "person", By: "ana" + bad, Reason: "r" + bad,
		Outcome: tool.Outcome{Result: tool.Result{Status: tool.StatusError, ErrorCode: tool.Code("internal" + bad)}},
	})
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	const want = "a\uFFFDb\uFFFDc\uFFFD"
	got, err := l.Find(t.Context(), audit.Query{SessionID: "s" + want})
	if err != nil || len(got) != 1 {
		t.Fatalf("Find = %+v, %v; want the call", got, err)
	}
	e := got[0]
	for field, v := range map[string][2]string{
		"user": {e.User, "u"}, "tenant": {e.Tenant, "t"}, "source": {e.Source, "cli"}, "agent": {e.Agent, "g"},
		"tool": {e.Tool, "write_file"}, "args": {e.Args, `{"content":"`}, "approved_by": {e.ApprovedBy, "ana"},
		"reason": {e.Reason, "r"}, "error_code": {e.ErrorCode, "internal"},
	} {
		w := v[1] + want
		if field == "args" {
			w += `"}`
		}
		if v[0] != w {
			t.Errorf("%s = %q, want %q", field, v[0], w)
		}
	}
}

// TestPruneRace: two replicas prune one log at once, as each
// hermes serve does daily; both succeed, and between them every old
// entry goes once while the newer ones stay.
func TestPruneRace(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		logs := []*audit.Log{audit.New(x.Open(t), fake), audit.New(x.Open(t), fake)}
		for i := range 300 {
			if err := logs[i%2].Record(t.Context(), tool.Audited{Name: "terminal"}); err != nil {
				t.Fatal(err)
			}
			if i == 199 {
				fake.Advance(48 * time.Hour)
			}
		}
		var wg sync.WaitGroup
		pruned := make([]int64, len(logs))
		for i, l := range logs {
			wg.Go(func() {
				n, err := l.Prune(t.Context(), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
				if err != nil {
					t.Errorf("Prune: %v", err)
				}
				pruned[i] = n
			})
		}
		wg.Wait()
		left, err := logs[0].Find(t.Context(), audit.Query{Limit: 1000})
		if err != nil || pruned[0]+pruned[1] != 200 || len(left) != 100 {
			t.Errorf("pruned %v, %d left (%v); want 200 between them and 100 left", pruned, len(left), err)
		}
	})
}
