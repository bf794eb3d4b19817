package gwstore

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/dbtest"
)

// TestPairingAcrossProcesses: the limits hold when two processes issue
// and approve codes at once: of six users asking together, MaxPending get
// a code; of two approvals of one code together, one pairs.
func TestPairingAcrossProcesses(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake, x dbtest.Target) {
		stores := []*Store{s, storeAt(t, x, clk)}
		var wg sync.WaitGroup
		var issued, refused atomic.Int32
		codes := make(chan string, 6)
		for i := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, _, err := stores[i%2].RequestCode(t.Context(), "telegram", fmt.Sprint(i))
				switch {
				case errors.Is(err, ErrTooManyPending):
					refused.Add(1)
				case err != nil:
					t.Error(err)
				default:
					issued.Add(1)
					codes <- code
				}
			}()
		}
		wg.Wait()
		if issued.Load() != MaxPending || refused.Load() != 6-MaxPending {
			t.Fatalf("%d issued, %d refused; want %d and %d", issued.Load(), refused.Load(), MaxPending, 6-MaxPending)
		}
		code := <-codes
		var paired atomic.Int32
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := stores[i].Approve(t.Context(), "telegram", code); err == nil {
					paired.Add(1)
				} else if !errors.Is(err, ErrNoSuchCode) {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if paired.Load() != 1 {
			t.Errorf("one code approved %d times at once, want 1", paired.Load())
		}
	})
}
