package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/notify"
)

// notifyConfig is the delivery accounts of config.yaml (and .env) for the
// notify package.
func notifyConfig(l *config.Loaded, log *slog.Logger) notify.Config {
	d := l.Config.Delivery
	token := string(d.TelegramBotToken)
	if token == "" {
		token = envValue(l, "TELEGRAM_BOT_TOKEN")
	}
	password := string(d.SMTP.Password)
	if password == "" {
		password = envValue(l, "SMTP_PASSWORD")
	}
	return notify.Config{
		Home:          l.Paths.Home,
		TelegramToken: token,
		SMTP: notify.SMTP{Host: d.SMTP.Host, Port: d.SMTP.Port, Username: d.SMTP.Username,
			Password: password, From: d.SMTP.From},
		Backoff: d.RetryBackoff,
		Logger:  log,
	}
}

func newDeliverCmd(a *app) *cobra.Command {
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
			n := notify.New(notifyConfig(l, a.logger(cmd)))
			chain, err := n.ParseChain(args[:len(args)-1])
			if err != nil {
				return err
			}
			rep := n.Deliver(cmd.Context(), chain, notify.Message{Title: "hermes test message", Text: args[len(args)-1], Job: "test"})
			out := cmd.OutOrStdout()
			for _, at := range rep.Attempts {
				line := fmt.Sprintf("  %s try %d: %s (%s)", at.Target, at.Try, at.Status, at.Duration.Round(1e6))
				if at.Error != "" {
					line += ": " + at.Error
				}
				fmt.Fprintln(out, line)
			}
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
