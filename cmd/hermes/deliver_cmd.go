package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/notify"
)

func newDeliverCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "deliver",
		Short: "Send messages the way scheduled jobs deliver their results",
	}
	test := &cobra.Command{
		Use:   "test TARGET... TEXT",
		Short: "Send a test message to a target, or through a fallback chain of them",
		Long: `Send TEXT to the first TARGET that takes it, as a job's deliver: list does,
and print every attempt. The local file ($HERMES_HOME/deliveries/) is always
the last resort, so the message is never lost.

Targets: wecom:KEY_OR_URL, feishu:URL[#secret], dingtalk:URL[#secret],
slack:URL, telegram:CHAT_ID (delivery.telegram_bot_token or
TELEGRAM_BOT_TOKEN), email:ADDRESS (delivery.smtp), webhook:URL, local.

  hermes deliver test wecom:0a1b2c3d "hello from hermes"
  hermes deliver test webhook:https://ops.example.com/hook email:me@example.com "chain test"`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			// The tries are shown here as they end, once each; the log
			// would repeat them.
			out := cmd.OutOrStdout()
			cfg := app.NotifyConfig(l, slog.New(slog.DiscardHandler))
			cfg.OnAttempt = func(at notify.Attempt) { printAttempt(out, at) }
			n := notify.New(cfg)
			chain, err := n.ParseChain(args[:len(args)-1])
			if err != nil {
				return err
			}
			rep := n.Deliver(cmd.Context(), chain, notify.Message{Title: "hermes test message", Text: args[len(args)-1], Job: "test"})
			if rep.Delivered == "" {
				return fmt.Errorf("not delivered: %v", rep.Err())
			}
			fmt.Fprintln(out, "delivered to", rep.Delivered)
			if strings.HasPrefix(rep.Delivered, "local") && !strings.HasPrefix(args[0], "local") {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.AddCommand(test)
	return cmd
}

// printAttempt shows one try; a target given up on says why, since the
// message then falls through to the next target of the chain.
func printAttempt(w io.Writer, at notify.Attempt) {
	line := fmt.Sprintf("  %s try %d: %s (%s)", at.Target, at.Try, at.Status, at.Duration.Round(time.Millisecond))
	switch at.Status {
	case notify.StatusRetry:
		line += ": " + at.Error + "; trying again"
	case notify.StatusFailed:
		line += ": " + at.Error + "\n  gave up on " + at.Target + after(at.Try) + "; the message falls through to the next target"
	}
	fmt.Fprintln(w, line)
}

// after says how many tries a target had, when more than one.
func after(tries int) string {
	if tries == 1 {
		return " (a failure that trying again cannot cure)"
	}
	return fmt.Sprintf(" after %d tries", tries)
}
