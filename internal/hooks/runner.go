package hooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/safety/redact"
)

// Asker asks the person at a terminal whether a hook may run. It is set
// only where someone can answer: the terminal chat and hermes hooks test.
type Asker interface {
	AskHook(ctx context.Context, h Hook) (bool, error)
}

// Options configure a Runner.
type Options struct {
	// Hooks are the configured hooks, in the order they run.
	Hooks []Hook
	// Consents remembers which hooks were allowed; nil allows none.
	Consents *Consents
	// Ask, when set, is asked about a hook not yet consented to; nil
	// means nobody can answer (serve, gateway, cron, -q without a
	// terminal), and such a hook is skipped and logged.
	Ask Asker
	// Redact cleans payloads and logged stderr of secret values; nil
	// redacts secrets recognized by their format only.
	Redact func(string) string
	// Env returns the environment hooks run with; nil means hermes's own
	// without the variables whose names look secret.
	Env func() []string
	// Logger gets one line per hook run; nil discards them.
	Logger *slog.Logger
}

// Runner runs the hooks of events. It is safe for concurrent use; a nil
// *Runner runs nothing.
type Runner struct {
	opt Options
	// askMu keeps one consent question on the terminal at a time;
	// refused remembers, for this process, the hooks refused, so a
	// person is not asked again at every tool call.
	askMu   sync.Mutex
	refused map[string]bool
}

// New returns a Runner.
func New(opt Options) *Runner {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Runner{opt: opt, refused: map[string]bool{}}
}

// Hooks returns the configured hooks.
func (r *Runner) Hooks() []Hook {
	if r == nil {
		return nil
	}
	return r.opt.Hooks
}

// Has reports whether any hook is configured for e, so callers can skip
// building a payload nobody reads.
func (r *Runner) Has(e Event) bool {
	for _, h := range r.Hooks() {
		if h.Event == e {
			return true
		}
	}
	return false
}

// Outcome is what one hook did with one payload.
type Outcome struct {
	Hook   Hook
	Answer Answer
	// Skipped says why the hook did not run ("not consented"); empty
	// when it ran.
	Skipped string
	// Err is why a hook that ran gave no answer.
	Err error
}

// Run runs the hooks of p's event that match p.Tool, one after another,
// and returns what each did.
func (r *Runner) Run(ctx context.Context, p Payload) []Outcome {
	var outs []Outcome
	for _, h := range r.Hooks() {
		if h.Event != p.Event || !h.Matches(p.Tool) {
			continue
		}
		outs = append(outs, r.runOne(ctx, h, p))
	}
	return outs
}

// runOne runs one hook once it is consented to.
func (r *Runner) runOne(ctx context.Context, h Hook, p Payload) Outcome {
	o := Outcome{Hook: h}
	if !r.consented(ctx, h) {
		o.Skipped = "not consented"
		r.opt.Logger.Warn("hook skipped: not consented; run `hermes hooks test "+string(h.Event)+"` in a terminal to allow it",
			slog.String("event", string(h.Event)), slog.String("program", filepath.Base(h.Command[0])), slog.String("session_id", p.SessionID))
		return o
	}
	start := time.Now()
	o.Answer, o.Err = r.exec(ctx, h, r.encode(p))
	attrs := []slog.Attr{slog.String("event", string(h.Event)), slog.String("program", filepath.Base(h.Command[0])),
		slog.String("session_id", p.SessionID), slog.Int64("duration_ms", time.Since(start).Milliseconds())}
	if p.Tool != "" {
		attrs = append(attrs, slog.String("tool", p.Tool))
	}
	if o.Err != nil {
		r.opt.Logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelWarn, "hook failed",
			append(attrs, slog.String("error", r.redact(o.Err.Error())))...)
	} else {
		r.opt.Logger.LogAttrs(context.WithoutCancel(ctx), slog.LevelInfo, "hook ran",
			append(attrs, slog.Bool("blocked", o.Answer.Block != ""), slog.Bool("rewrote", len(o.Answer.Arguments) > 0),
				slog.Bool("context", o.Answer.Context != ""))...)
	}
	return o
}

// consented reports whether h may run: it was allowed before, or the
// person at the terminal allows it now (and that is remembered).
func (r *Runner) consented(ctx context.Context, h Hook) bool {
	if r.opt.Consents.Granted(h) {
		return true
	}
	if r.opt.Ask == nil {
		return false
	}
	r.askMu.Lock()
	defer r.askMu.Unlock()
	key := Key(h)
	if r.refused[key] {
		return false
	}
	if r.opt.Consents.Granted(h) {
		return true
	}
	ok, err := r.opt.Ask.AskHook(ctx, h)
	if err != nil || !ok {
		if err == nil {
			r.refused[key] = true
		}
		return false
	}
	if err := r.opt.Consents.Grant(h); err != nil {
		r.opt.Logger.Warn("hook consent not remembered; it is asked again next time", slog.String("error", err.Error()))
	}
	return true
}

// encode is p as the JSON a hook reads, with secret values redacted. When
// redaction leaves the text invalid (a secret cut across JSON syntax), the
// arguments and result go as redacted strings instead.
func (r *Runner) encode(p Payload) []byte {
	b, _ := json.Marshal(p)
	s := r.redact(string(b))
	if json.Valid([]byte(s)) {
		return []byte(s)
	}
	for _, raw := range []*json.RawMessage{&p.Arguments, &p.Result} {
		if len(*raw) > 0 {
			*raw = redact.JSON(*raw, r.redact)
		}
	}
	for _, f := range []*string{&p.Message, &p.Final, &p.Text, &p.Error} {
		*f = r.redact(*f)
	}
	b, _ = json.Marshal(p)
	return b
}

// redact cleans s of secrets.
func (r *Runner) redact(s string) string {
	if r.opt.Redact != nil {
		return r.opt.Redact(s)
	}
	return redact.Secrets(s)
}

// env is the environment a hook runs with.
func (r *Runner) env() []string {
	if r.opt.Env != nil {
		return r.opt.Env()
	}
	return redact.ScrubEnv(os.Environ(), nil)
}
