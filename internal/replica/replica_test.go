package replica

import (
	"os"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// TestRoll: replicas beating into one database are listed with what
// they run until they leave or fall silent, on both backends, and two
// replicas with different configuration hashes show as disagreeing.
func TestRoll(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		clk := clock.NewFake(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC))
		a, b := New(x.Open(t), clk), New(x.Open(t), clk)
		beat := func(l *Roll, holder, hash string) {
			t.Helper()
			if err := l.Beat(t.Context(), Replica{Holder: holder, Host: "h", PID: 7, Version: "v1", ConfigHash: hash, APIURL: "http://" + holder}); err != nil {
				t.Fatal(err)
			}
		}
		beat(a, "h/1", "aaa")
		beat(b, "h/2", "aaa")
		live := func() []Replica {
			t.Helper()
			rs, err := a.Live(t.Context(), time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			return rs
		}
		if rs := live(); len(rs) != 2 || rs[0].Holder != "h/1" || rs[1].Holder != "h/2" || len(Disagree(rs)) != 1 {
			t.Fatalf("live = %+v, want h/1 and h/2 agreeing", rs)
		}
		beat(b, "h/2", "bbb") // h/2 reloaded an edited config.yaml
		if d := Disagree(live()); len(d) != 2 || d["bbb"][0] != "h/2" {
			t.Errorf("Disagree = %v, want h/2 apart on bbb", d)
		}
		clk.Advance(2 * time.Minute)
		beat(a, "h/1", "aaa") // h/2 fell silent
		if rs := live(); len(rs) != 1 || rs[0].Holder != "h/1" || rs[0].PID != 7 || rs[0].Version != "v1" || rs[0].APIURL != "http://h/1" {
			t.Errorf("live after h/2 fell silent = %+v, want h/1 alone", rs)
		}
		if err := a.Leave(t.Context(), "h/1"); err != nil {
			t.Fatal(err)
		}
		if rs := live(); len(rs) != 0 {
			t.Errorf("live after leaving = %+v, want none", rs)
		}
	})
}
