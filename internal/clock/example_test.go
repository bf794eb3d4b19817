package clock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// A test moves a Fake by hand: it waits until the code under test sleeps,
// then advances past the sleep.
func ExampleFake() {
	c := clock.NewFake(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	woke := make(chan time.Time)
	go func() {
		_ = c.Sleep(context.Background(), time.Hour)
		woke <- c.Now()
	}()
	c.BlockUntil(1)
	c.Advance(time.Hour)
	fmt.Println((<-woke).Format(time.Kitchen))
	// Output: 10:00AM
}
