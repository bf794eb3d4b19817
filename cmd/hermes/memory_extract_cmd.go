package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/procgroup"
)

func newMemoryExtractCmd(a *cli) *cobra.Command {
	var background bool
	cmd := &cobra.Command{
		Use:   "extract SESSION",
		Short: "Extract a session's lasting facts into long-term memory now",
		Long: `Ask the model (auxiliary.memory, else the main one) for the lasting facts
of SESSION and store them, as hermes does when a chat ends or goes idle.
A session's messages are extracted once, whichever process gets to them
first, and no more than memory.long_term.max_extractions_per_day
extractions are made a day. hermes chat -q runs this in the background
after its answer (--wait-memory waits for it instead).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if background {
				// Started by chat -q after it exited: nobody reads
				// stderr, the log file keeps what happened.
				closeLog, err := logToFile(cmd, a)
				if err != nil {
					return err
				}
				defer closeLog()
			}
			// The extraction is one model call: no tools, so no MCP
			// servers started for it.
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			if !h.Config.Config.Memory.LongTerm.On() {
				return errors.New("long-term memory is off (memory.long_term: false)")
			}
			id := args[0]
			found, added, err := h.Engine.ExtractFacts(cmd.Context(), id)
			out := cmd.OutOrStdout()
			switch {
			case errors.Is(err, facts.ErrExtracted):
				fmt.Fprintf(out, "session %s: its messages were extracted already\n", id)
				return nil
			case errors.Is(err, engine.ErrNothingToExtract):
				fmt.Fprintf(out, "session %s: nothing to extract (no exchange in it, or no such session; hermes sessions list shows them)\n", id)
				return nil
			case errors.Is(err, facts.ErrBudget):
				return fmt.Errorf("session %s: %w; it is extracted tomorrow (UTC) at its next chance, or raise memory.long_term.max_extractions_per_day", id, err)
			case err != nil:
				return fmt.Errorf("session %s: %w", id, err)
			}
			fmt.Fprintf(out, "session %s: %d facts found, %d new\n", id, found, added)
			return nil
		},
	}
	cmd.Flags().BoolVar(&background, "background", false, "log to $HERMES_HOME/logs/hermes.log, as when chat -q starts it")
	cmd.Flags().MarkHidden("background")
	return cmd
}

// extractInBackground starts "hermes memory extract SESSION" detached
// from this process, so a one-shot chat's facts are extracted after it
// exits, without making it wait for the model.
func extractInBackground(a *cli, sessionID string) error {
	exe, err := selfExe()
	if err != nil {
		return err
	}
	args := []string{"memory", "extract", "--background", sessionID}
	if a.profile != "" {
		args = append([]string{"--profile", a.profile}, args...)
	}
	c := exec.Command(exe, args...)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return err
	}
	defer devnull.Close()
	c.Stdin, c.Stdout, c.Stderr = devnull, devnull, devnull
	procgroup.Detach(c)
	if err := c.Start(); err != nil {
		return err
	}
	return c.Process.Release()
}
