package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/app"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
)

func newModelCmd(a *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Talk to the configured model directly, to see that it works",
	}
	cmd.AddCommand(newModelCallCmd(a), newModelListCmd(a))
	return cmd
}

// modelFlags select an endpoint other than the configured one.
type modelFlags struct {
	api, baseURL, model, apiKey, provider string
}

// register adds the flags. The wire protocol is --api-mode in every
// command, after the config key model.api_mode; model call and model
// list also take the --api they once had, hidden and deprecated, so
// scripts written for it keep working.
func (f *modelFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.api, "api-mode", "", "wire protocol: chat_completions, responses or anthropic_messages")
	fl.StringVar(&f.baseURL, "base-url", "", "API root, e.g. http://localhost:11434/v1")
	fl.StringVar(&f.model, "model", "", "model name")
	fl.StringVar(&f.apiKey, "api-key", "", "API key (prefer the provider's variable in .env)")
	fl.StringVar(&f.provider, "provider", "", "a built-in or configured provider name")
}

// registerOldAPI adds the deprecated --api spelling of --api-mode.
func (f *modelFlags) registerOldAPI(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.api, "api", "", "wire protocol")
	_ = cmd.Flags().MarkDeprecated("api", "use --api-mode")
}

// resolve returns the endpoint the flags and configuration select.
func (f *modelFlags) resolve(cmd *cobra.Command, a *cli) (*config.Loaded, config.Resolved, error) {
	l, err := a.load(cmd)
	if err != nil {
		return nil, config.Resolved{}, err
	}
	r, err := l.ResolveModel(f.override())
	return l, r, err
}

type callFlags struct {
	modelFlags
	stream    bool
	json      bool
	toolsFile string
	system    string
	maxTokens int
	retries   int
	fallback  bool
}

func newModelCallCmd(a *cli) *cobra.Command {
	var f callFlags
	cmd := &cobra.Command{
		Use:   "call [flags] PROMPT",
		Short: "Send one prompt and show exactly what hermes understood of the reply",
		Long: `Send one prompt to a model and print the reply as hermes parsed it: text,
reasoning, tool calls, finish reason and token usage. Without endpoint flags
it uses the configured model. It makes exactly one attempt unless --retries
is given. PROMPT "-" reads the prompt from stdin.

With --json it prints one JSON object:
  {"text", "reasoning", "tool_calls": [{"id", "name", "arguments"}],
   "finish_reason", "raw_finish_reason", "usage": {...}, "model"}
and on failure exits 1 after printing
  {"error": {"kind", "status", "type", "code", "message", "request_id"}}
where kind is one of rate_limited, overloaded, context_overflow, auth,
bad_request, not_found, server, network, invalid_response (the call failed,
also when the error arrived inside a streamed 200 response), reply_too_large
(the reply passed the size hermes takes of one reply, from --max-tokens or
at most 8 MiB, and was cut), canceled (interrupted) or config (bad flags or
configuration; nothing was sent).`,
		Example: `  hermes model call "Say hello"
  hermes model call --stream --model gpt-4o-mini "Count to five"
  hermes model call --base-url http://localhost:11434/v1 --model qwen3:8b "hi"
  hermes model call --api-mode anthropic_messages --model claude-sonnet-4-5 --json "hi"
  hermes model call --tools tools.json --json "What is the weather in Oslo?"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := modelCall(cmd, a, &f, args)
			var ee *exitError
			if err != nil && f.json && !errors.As(err, &ee) {
				// Bad flags or configuration: still one JSON object, so a
				// script reading stdout always gets one.
				writeJSON(cmd.OutOrStdout(), callFailure{Error: callError{Kind: "config", Message: err.Error()}})
				fmt.Fprintln(cmd.ErrOrStderr(), "hermes:", err)
				return &exitError{code: 1}
			}
			return err
		},
	}
	f.register(cmd)
	f.registerOldAPI(cmd)
	fl := cmd.Flags()
	fl.BoolVar(&f.stream, "stream", false, "stream the reply (SSE) instead of one JSON response")
	fl.BoolVar(&f.json, "json", false, "print one JSON object instead of text")
	fl.StringVar(&f.toolsFile, "tools", "", "JSON `FILE` with an array of tool definitions to offer")
	fl.StringVar(&f.system, "system", "", "system prompt")
	fl.IntVar(&f.maxTokens, "max-tokens", 0, "cap on the reply's tokens (default: the configured model.max_tokens)")
	fl.IntVar(&f.retries, "retries", 0, "retry failed attempts up to `N` times, with backoff")
	fl.BoolVar(&f.fallback, "fallback", false, "use the configured fallback_providers chain (and agent.api_max_retries unless --retries)")
	return cmd
}

func modelCall(cmd *cobra.Command, a *cli, f *callFlags, args []string) error {
	prompt := strings.Join(args, " ")
	if prompt == "-" {
		data, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return fmt.Errorf("read prompt from stdin: %w", err)
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		return fmt.Errorf("PROMPT is empty: give the text to send, or - to read it from stdin")
	}
	if f.retries < 0 {
		return fmt.Errorf("--retries: %d is not accepted; use 0 or more", f.retries)
	}
	var tools []llm.ToolSpec
	if f.toolsFile != "" {
		var err error
		if tools, err = readTools(f.toolsFile); err != nil {
			return err
		}
	}
	l, r, err := f.resolve(cmd, a)
	if err != nil {
		return err
	}
	log := a.logger(cmd)
	var p llm.Provider
	if f.fallback {
		retries := l.Config.Agent.APIMaxRetries
		if cmd.Flags().Changed("retries") {
			retries = f.retries
		}
		p, err = app.ModelChain(l, r, app.RetryPolicy(&l.Config, retries, log))
	} else {
		p, err = app.NewProvider(r)
		if err == nil && f.retries > 0 {
			p = llm.WithRetry(p, app.RetryPolicy(&l.Config, f.retries, log))
		}
	}
	if err != nil {
		return err
	}

	req := &llm.Request{Model: r.Model, Tools: tools, NoStream: !f.stream, MaxTokens: r.MaxTokens}
	if f.maxTokens > 0 {
		req.MaxTokens = f.maxTokens
	}
	if f.system != "" {
		req.Messages = append(req.Messages, llm.SystemMessage(f.system))
	}
	req.Messages = append(req.Messages, llm.UserMessage(prompt))

	out := cmd.OutOrStdout()
	var live *liveText
	if !f.json && f.stream {
		live = &liveText{out: out, errOut: cmd.ErrOrStderr()}
	}
	var resp *llm.Response
	start := time.Now()
	defer func() {
		attrs := []slog.Attr{slog.String("provider", r.Provider), slog.String("model", r.Model),
			slog.Int64("duration_ms", time.Since(start).Milliseconds())}
		if resp != nil {
			attrs = append(attrs, slog.Int("tokens", resp.Usage.InputTokens+resp.Usage.OutputTokens))
		}
		log.LogAttrs(cmd.Context(), slog.LevelDebug, "model call finished", attrs...)
	}()
	for ev := range p.Stream(cmd.Context(), req) {
		switch ev.Kind {
		case llm.EventDone:
			resp = ev.Response
		case llm.EventError:
			resp, err = ev.Response, ev.Err
		default:
			live.show(ev)
		}
	}
	if err != nil {
		if f.json {
			writeJSON(out, newCallFailure(err))
		} else {
			live.end()
			fmt.Fprintln(cmd.ErrOrStderr(), "hermes: model call failed:", err)
		}
		return &exitError{code: 1}
	}
	if f.json {
		writeJSON(out, newCallResult(resp))
		return nil
	}
	live.end()
	printReply(cmd, resp, live != nil)
	return nil
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func newModelListCmd(a *cli) *cobra.Command {
	var f modelFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the models the endpoint serves (its /models)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, r, err := f.resolveForList(cmd, a)
			if err != nil {
				return err
			}
			p, err := app.NewProvider(r)
			if err != nil {
				return err
			}
			lister, ok := p.(llm.ModelLister)
			if !ok {
				return fmt.Errorf("provider %s cannot list its models", r.Provider)
			}
			models, err := lister.ListModels(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if models == nil {
					models = []llm.ModelInfo{}
				}
				writeJSON(cmd.OutOrStdout(), models)
				return nil
			}
			for _, m := range models {
				line := m.ID
				if m.ContextLength > 0 {
					line += fmt.Sprintf("\t%d tokens", m.ContextLength)
				}
				fmt.Fprintln(cmd.OutOrStdout(), line)
			}
			return nil
		},
	}
	f.register(cmd)
	f.registerOldAPI(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

// resolveForList resolves like resolve, but listing needs no model name:
// a placeholder stands in when none is configured.
func (f *modelFlags) resolveForList(cmd *cobra.Command, a *cli) (*config.Loaded, config.Resolved, error) {
	l, r, err := f.resolve(cmd, a)
	if err == nil || f.model != "" {
		return l, r, err
	}
	g := *f
	g.model = "-"
	return g.resolve(cmd, a)
}
