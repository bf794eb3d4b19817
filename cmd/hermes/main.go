// Command hermes is a long-running AI agent runtime: it turns a language
// model into a dispatcher for the scripts, APIs, files and chat groups a
// person already has.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
)

func main() {
	a := defaultEnv()
	err := newRootCmd(a).ExecuteContext(context.Background())
	a.close()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "hermes:", err)
		os.Exit(1)
	}
}

// exitError ends the program with a code after the command has already
// reported what went wrong (for example as JSON on stdout).
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }
