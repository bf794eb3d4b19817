package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/hooks"
)

func newHooksCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "See and try the hooks of config.yaml",
		Long: `Hooks are commands config.yaml's hooks: runs at events: pre_tool_call (may
block a call or rewrite its arguments), post_tool_call, pre_llm_call (may add
context), on_session_start, on_session_end, on_turn_end and on_delivery. Each
gets one JSON object on stdin and may answer one on stdout.

A hook runs only after a person allowed it at a terminal: hermes chat asks
the first time a hook would run, and hermes hooks test asks before running
it. The answer is remembered in $HERMES_HOME/hooks-allowlist.json for that
event and exact command; an edited command is asked about again. Where
nobody can be asked (hermes serve, the gateway, jobs, -q without a
terminal) a hook not allowed yet is skipped and logged.`,
	}
	cmd.AddCommand(newHooksListCmd(a), newHooksTestCmd(a))
	return cmd
}

func newHooksListCmd(a *cli) *cobra.Command {
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List the hooks, their events and whether they are allowed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd)
			if err != nil {
				return err
			}
			type row struct {
				Event     hooks.Event `json:"event"`
				Command   []string    `json:"command"`
				Tools     []string    `json:"tools,omitempty"`
				Timeout   string      `json:"timeout"`
				Fail      string      `json:"fail,omitempty"`
				Consented bool        `json:"consented"`
			}
			consents := app.HookConsents(l)
			rows := []row{}
			for _, h := range app.ConfiguredHooks(l.Config) {
				r := row{Event: h.Event, Command: h.Command, Tools: h.Tools, Timeout: hookTimeout(h).String(), Consented: consents.Granted(h)}
				if h.Event == hooks.PreToolCall {
					r.Fail = map[bool]string{true: "open", false: "closed"}[h.FailOpen]
				}
				rows = append(rows, r)
			}
			out := cmd.OutOrStdout()
			if asJSON {
				writeJSON(out, rows)
				return nil
			}
			if len(rows) == 0 {
				fmt.Fprintln(out, "No hooks are configured; add them under hooks: in config.yaml (see the README's Hooks section).")
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "EVENT\tCONSENTED\tTOOLS\tTIMEOUT\tCOMMAND")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Event, map[bool]string{true: "yes", false: "no"}[r.Consented],
					orAll(strings.Join(r.Tools, ",")), r.Timeout, showArgv(r.Command))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the hooks as a JSON array")
	return list
}

// hookTimeout is the timeout a hook runs with.
func hookTimeout(h hooks.Hook) fmt.Stringer {
	if h.Timeout > 0 {
		return h.Timeout
	}
	return hooks.DefaultTimeout
}

// orAll shows an empty tools list as every tool.
func orAll(s string) string {
	if s == "" {
		return "(all)"
	}
	return s
}

func newHooksTestCmd(a *cli) *cobra.Command {
	var payload string
	test := &cobra.Command{
		Use:   "test EVENT",
		Short: "Run the hooks of EVENT with a sample payload and show what they answered",
		Long: `Run the hooks of EVENT with a sample payload (a terminal call of "echo hello"
for tool events), or with the fields --payload gives, and show what each
answered. On a terminal, a hook not allowed yet is asked about first, and a
yes is remembered as in a chat; without a terminal it is skipped. The exit
status is 1 when a hook failed or was skipped.

Events: ` + strings.Join(eventNames(), ", "),
		Example: `  hermes hooks test pre_tool_call
  hermes hooks test pre_tool_call --payload '{"tool": "terminal", "arguments": {"command": "rm -rf build"}}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			event := hooks.Event(args[0])
			if !hooks.Known(event) {
				return fmt.Errorf("event %q is not one hermes has; use one of %s", args[0], strings.Join(eventNames(), ", "))
			}
			p, err := samplePayload(event, payload)
			if err != nil {
				return err
			}
			var o app.Options
			if interactiveInput(cmd) {
				o.HookAsker = &hookAsker{out: cmd.OutOrStdout(), lines: newLineSource(cmd.InOrStdin())}
			}
			h, err := a.open(cmd, o)
			if err != nil {
				return err
			}
			defer h.Close()
			outs := h.Hooks.Run(cmd.Context(), p)
			return showOutcomes(cmd, event, outs)
		},
	}
	test.Flags().StringVar(&payload, "payload", "", "`JSON` fields of the payload to send instead of the sample's (session_id, tool, arguments, ...)")
	return test
}

// eventNames lists the events' names.
func eventNames() []string {
	var out []string
	for _, e := range hooks.Events() {
		out = append(out, string(e))
	}
	return out
}

// samplePayload is the payload hooks test sends: a sample for event with
// the fields of override on top.
func samplePayload(event hooks.Event, override string) (hooks.Payload, error) {
	p := hooks.Payload{Event: event, SessionID: "hooks-test", Source: "cli"}
	switch event {
	case hooks.PreToolCall, hooks.PostToolCall:
		p.Tool, p.Arguments = "terminal", json.RawMessage(`{"command":"echo hello"}`)
		if event == hooks.PostToolCall {
			p.Result = json.RawMessage(`{"status":"ok","data":{"output":"hello\n","exit_code":0}}`)
		}
	case hooks.PreLLMCall:
		p.Message = "What changed since yesterday?"
	case hooks.OnTurnEnd:
		p.Final, p.Stopped = "Nothing changed.", "done"
	case hooks.OnSessionEnd:
		p.Reason = "exit"
	case hooks.OnDelivery:
		p.Job, p.Text, p.Delivered = "daily-report", "The report.", "local"
	}
	if override == "" {
		return p, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(override)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("--payload: %v; give a JSON object of the fields session_id, source, tool, arguments, result, message, final, stopped, reason, job, text, delivered, error", err)
	}
	if p.Event != event {
		return p, fmt.Errorf("--payload: event %q differs from the EVENT argument %q; leave it out", p.Event, event)
	}
	return p, nil
}

// showOutcomes prints what each hook did; a failed or skipped hook makes
// the exit status 1.
func showOutcomes(cmd *cobra.Command, event hooks.Event, outs []hooks.Outcome) error {
	w := cmd.OutOrStdout()
	if len(outs) == 0 {
		fmt.Fprintf(w, "No %s hook runs for this payload.\n", event)
		return nil
	}
	bad := false
	for i, o := range outs {
		fmt.Fprintf(w, "%d. %s\n", i+1, showArgv(o.Hook.Command))
		switch {
		case o.Skipped != "":
			bad = true
			fmt.Fprintf(w, "   skipped: %s (run this command on a terminal and answer yes to allow it)\n", o.Skipped)
		case o.Err != nil:
			bad = true
			fmt.Fprintf(w, "   failed: %v\n", o.Err)
			if event == hooks.PreToolCall && !o.Hook.FailOpen {
				fmt.Fprintln(w, "   (a tool call would be blocked: the hook is fail: closed)")
			}
		default:
			fmt.Fprintf(w, "   answered: %s\n", showAnswer(o.Answer))
		}
	}
	if bad {
		return &exitError{code: 1}
	}
	return nil
}

// showAnswer renders an answer, or says there was none.
func showAnswer(a hooks.Answer) string {
	var parts []string
	if a.Block != "" {
		parts = append(parts, fmt.Sprintf("block %q", a.Block))
	}
	if len(a.Arguments) > 0 {
		parts = append(parts, "arguments "+string(a.Arguments))
	}
	if a.Context != "" {
		parts = append(parts, fmt.Sprintf("context %q", a.Context))
	}
	if len(parts) == 0 {
		return "nothing (the call or event goes on as it was)"
	}
	return strings.Join(slices.Clip(parts), "; ")
}
