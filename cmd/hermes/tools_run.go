package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/tool"
	"github.com/hermes-go/hermes/internal/tools/declared"
)

// toolsTestSession is the session id calls made by "hermes tools test"
// run under, so their approvals and logs stand apart from chats.
const toolsTestSession = "tools-test"

func newToolsTestCmd(a *cli) *cobra.Command {
	var args string
	cmd := &cobra.Command{
		Use:   "test NAME",
		Short: "Run one tool by hand and show exactly what it did",
		Long: `Run one tool once, as the model would call it, and print what it did and
the result envelope the model would get. For a declared tool that is the
exact request, command or SQL (secret values shown as ${NAME}) with its
status and duration, for every attempt. Run a new tool by hand once and
read this before letting the model use it.

Arguments go through the same validation, timeouts, retries and approval
as in a chat; a tool marked approval: always asks here too. The exit status
is 1 when the result is an error.

  hermes tools test search_orders --args '{"status": "paid"}'
  hermes tools test disk_report --args '{"path": "/var/log"}'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, names []string) error {
			if !json.Valid([]byte(args)) {
				return fmt.Errorf("--args: %q is not JSON; give the arguments as a JSON object, e.g. --args '{\"path\": \".\"}'", args)
			}
			var prompter safety.Prompter
			if interactiveInput(cmd) {
				prompter = &consolePrompter{out: cmd.OutOrStdout(), lines: newLineSource(cmd.InOrStdin())}
			}
			h, err := a.open(cmd, app.Options{})
			if err != nil {
				return err
			}
			defer h.Close()
			name := names[0]
			if strings.HasPrefix(name, "mcp__") {
				h.StartMCP(cmd.Context())
			}
			if _, ok := h.Tools.Registry.Get(name); !ok {
				return unknownTool(name, h.Tools)
			}
			res := runToolOnce(cmd, h, h.Policy.For(toolsTestSession, safety.Asker{Prompter: prompter}), name, args)
			if res.Status != tool.StatusOK {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&args, "args", "{}", "the arguments as a JSON object")
	return cmd
}

// runToolOnce calls one tool through a dispatcher over every registered
// tool, printing each declared attempt's trace and then the envelope.
func runToolOnce(cmd *cobra.Command, h *app.App, approver tool.Approver, name, args string) tool.Result {
	out := cmd.OutOrStdout()
	d := h.Engine.AllTools().Dispatcher
	cwd, _ := os.Getwd()
	ctx := tool.WithInvocation(cmd.Context(), tool.Invocation{SessionID: toolsTestSession, Workdir: cwd, Approver: approver})
	ctx = declared.WithTrace(ctx, func(t declared.Trace) { fmt.Fprintln(out, t.String()) })
	outcome := d.Run(ctx, []llm.ToolCall{{ID: "call_1", Name: name, Arguments: args}}, nil)[0]
	fmt.Fprintln(out, "result:")
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(outcome.Content), "", "  ") == nil {
		fmt.Fprintln(out, pretty.String())
	} else {
		fmt.Fprintln(out, outcome.Content)
	}
	return outcome.Result
}

// unknownTool says that name is no tool and which names come close.
func unknownTool(name string, tools *app.Tools) error {
	var near []string
	for _, t := range tools.Registry.All() {
		n := t.Spec().Name
		if strings.Contains(n, name) || strings.Contains(name, n) {
			near = append(near, n)
		}
	}
	msg := fmt.Sprintf("there is no tool named %q", name)
	if len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, ", ") + "?"
	}
	if ps := tools.Declared.Problems(); len(ps) > 0 {
		msg += fmt.Sprintf(" (%d problem(s) in declared tools files; hermes tools list shows them)", len(ps))
	}
	return fmt.Errorf("%s; hermes tools list shows every tool", msg)
}
