package apistore

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/dbtest"
	"github.com/hermes-go/hermes/internal/sqldb"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

var t0 = time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)

func claimAt(s *Store, t *testing.T, holder string, at time.Time) (api.Request, bool) {
	t.Helper()
	rec, took, err := s.Claim(t.Context(), api.RequestClaim{Caller: "bob", Key: "k1", Fingerprint: "fp", Holder: holder, Now: at, Until: at.Add(30 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	return rec, took
}

// TestClaimOnce: of replicas claiming one key at once exactly one takes
// it, on both backends.
func TestClaimOnce(t *testing.T) {
	dbtest.EachTarget(t, func(t *testing.T, x dbtest.Target) {
		stores := []*Store{New(x.Open(t)), New(x.Open(t)), New(x.Open(t))}
		var mu sync.Mutex
		took := 0
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				if _, ok := claimAt(stores[i%3], t, "r"+string(rune('a'+i)), t0); ok {
					mu.Lock()
					took++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if took != 1 {
			t.Errorf("%d claims took the key, want exactly 1", took)
		}
	})
}

// TestClaimLifecycle: a live claim is refused to others; a lapsed one
// is taken over with what the dead attempt began from; a finished one
// gives its answer back; a released one is taken again at once; another
// caller's same key is another request.
func TestClaimLifecycle(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db sqldb.DB) {
		s := New(db)
		if _, ok := claimAt(s, t, "a", t0); !ok {
			t.Fatal("a new key was not taken")
		}
		if err := s.Begin(t.Context(), "bob", "k1", "a", "sess1", 41); err != nil {
			t.Fatal(err)
		}
		if rec, ok := claimAt(s, t, "b", t0.Add(10*time.Second)); ok || rec.Holder != "a" || rec.Done {
			t.Fatalf("a live claim was taken over: %+v %v", rec, ok)
		}
		if held, err := s.Renew(t.Context(), "bob", "k1", "b", t0.Add(time.Hour)); err != nil || held {
			t.Errorf("a non-holder renewed the claim: %v %v", held, err)
		}
		rec, ok := claimAt(s, t, "b", t0.Add(31*time.Second))
		if !ok || rec.SessionID != "sess1" || rec.BaseID != 41 {
			t.Fatalf("takeover of a lapsed claim = %+v %v, want it with session sess1 from message 41", rec, ok)
		}
		if err := s.Begin(t.Context(), "bob", "k1", "a", "sess1", 41); err == nil {
			t.Errorf("the dead holder could still begin the request")
		}
		if err := s.Finish(t.Context(), "bob", "k1", "b", 200, []byte(`{"ok":1}`)); err != nil {
			t.Fatal(err)
		}
		rec, ok = claimAt(s, t, "c", t0.Add(time.Hour))
		if ok || !rec.Done || rec.Status != 200 || string(rec.Answer) != `{"ok":1}` {
			t.Errorf("a finished request = %+v %v, want its answer", rec, ok)
		}
		other, took, err := s.Claim(t.Context(), api.RequestClaim{Caller: "eve", Key: "k1", Fingerprint: "fp", Holder: "e", Now: t0, Until: t0.Add(time.Minute)})
		if err != nil || !took || other.Done {
			t.Errorf("another caller's same key = %+v %v %v, want a request of its own", other, took, err)
		}
		if err := s.Release(t.Context(), "eve", "k1", "e"); err != nil {
			t.Fatal(err)
		}
		if _, took, _ := s.Claim(t.Context(), api.RequestClaim{Caller: "eve", Key: "k1", Fingerprint: "fp", Holder: "f", Now: t0, Until: t0.Add(time.Minute)}); !took {
			t.Errorf("a released claim was not taken again")
		}
		// A day later the key is forgotten: it is a new request.
		if _, ok := claimAt(s, t, "d", t0.Add(25*time.Hour)); !ok {
			t.Errorf("a key a day old was not taken as new")
		}
	})
}
