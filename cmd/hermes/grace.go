package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// turnGrace is how long a one-shot chat stopped by Ctrl-C or SIGTERM has
// to save what it can: the question and the answer so far are recorded
// in well under a second, so more time means something is stuck (a
// database another process keeps locked, a tool that ignores its
// cancellation), and the process ends anyway.
const turnGrace = 3 * time.Second

// exitAfterGrace watches ctx, the command's context that Ctrl-C and
// SIGTERM cancel: once it ends, the process exits with 130 when the
// command has not returned within turnGrace, or at once on a second
// signal. The returned func stops the watch; call it when the command
// returns.
func exitAfterGrace(ctx context.Context, errOut io.Writer) func() {
	done := make(chan struct{})
	sigs := make(chan os.Signal, 1)
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		t := time.NewTimer(turnGrace)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-sigs:
			fmt.Fprintln(errOut, "hermes: stopping now")
		case <-t.C:
			fmt.Fprintf(errOut, "hermes: the turn did not stop within %s of the interrupt; exiting without saving the rest\n", turnGrace)
		}
		os.Exit(130)
	}()
	return func() {
		close(done)
		signal.Stop(sigs)
	}
}
