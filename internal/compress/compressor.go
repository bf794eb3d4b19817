package compress

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/llm"
)

// DefaultCooldown is how long a Compressor waits after an aborted
// compression before it reports itself due again, so that a provider that
// is down is not asked for a summary on every turn.
const DefaultCooldown = 10 * time.Minute

// ErrSummaryUnavailable marks a compression aborted because the summary
// model could not be reached (auth, network, timeout, unavailable). The
// conversation is returned unchanged; the caller should show the error.
var ErrSummaryUnavailable = errors.New("compress: the summary model could not be reached; the conversation was left unchanged")

// ErrCoolingDown is returned by an unforced Compress during the cooldown
// that follows an aborted compression.
var ErrCoolingDown = errors.New("compress: cooling down after a failed compression")

// Options configure a Compressor. Zero values take the defaults named on
// each field.
type Options struct {
	// Window is the model's context window in tokens; required.
	Window int
	// ReplyBudget is the tokens reserved for the model's reply.
	ReplyBudget int
	// Threshold is the fraction of the usable window past which the
	// conversation is compressed (DefaultThreshold).
	Threshold float64
	// TargetRatio sizes the tail: Threshold × TargetRatio of the window
	// (DefaultTargetRatio).
	TargetRatio float64
	// ProtectFirstN is how many leading messages stay before the first
	// compression (DefaultProtectFirstN); negative keeps none.
	ProtectFirstN int
	// ProtectLastN is the fewest trailing messages kept verbatim, however
	// many tokens they hold (MinTailMessages when zero): Hermes Agent's
	// compression.protect_last_n.
	ProtectLastN int
	// Summarizer writes the structured summary; required.
	Summarizer Summarizer
	// Estimate returns a message's size in tokens; nil uses
	// llm.EstimateMessage.
	Estimate func(llm.Message) int
	// Clock is the clock of the cooldown; nil means the real clock.
	Clock clock.Clock
	// Cooldown is how long to wait after an aborted compression
	// (DefaultCooldown).
	Cooldown time.Duration
	// Logger receives one line per compression; nil uses slog.Default().
	Logger *slog.Logger
}

// Compressor compresses conversations for one model window. It is safe for
// concurrent use; its state is the cooldown after an abort and the window,
// which shrinks when the provider says a request was too long.
type Compressor struct {
	opts   Options
	window atomic.Int64

	mu             sync.Mutex
	coolingUntil   time.Time
	lastAbortCause error
}

// New checks opts, fills in defaults and returns a Compressor.
func New(opts Options) (*Compressor, error) {
	if opts.Window <= 0 {
		return nil, fmt.Errorf("compress: Options.Window is %d; give the model's context window in tokens (> 0)", opts.Window)
	}
	if opts.ReplyBudget < 0 || opts.ReplyBudget >= opts.Window {
		return nil, fmt.Errorf("compress: Options.ReplyBudget is %d; give 0 or more tokens, less than the window (%d)", opts.ReplyBudget, opts.Window)
	}
	if opts.Threshold == 0 {
		opts.Threshold = DefaultThreshold
	}
	if opts.Threshold < 0 || opts.Threshold > 1 {
		return nil, fmt.Errorf("compress: Options.Threshold is %v; give a fraction in (0, 1]", opts.Threshold)
	}
	if opts.TargetRatio == 0 {
		opts.TargetRatio = DefaultTargetRatio
	}
	if opts.TargetRatio < 0 || opts.TargetRatio > 1 {
		return nil, fmt.Errorf("compress: Options.TargetRatio is %v; give a fraction in (0, 1]", opts.TargetRatio)
	}
	if opts.ProtectFirstN == 0 {
		opts.ProtectFirstN = DefaultProtectFirstN
	}
	if opts.ProtectFirstN < 0 {
		opts.ProtectFirstN = 0
	}
	if opts.ProtectLastN <= 0 {
		opts.ProtectLastN = MinTailMessages
	}
	if opts.Summarizer == nil {
		return nil, errors.New("compress: Options.Summarizer is nil; give a Summarizer such as ModelSummarizer")
	}
	if opts.Estimate == nil {
		opts.Estimate = llm.EstimateMessage
	}
	opts.Clock = clock.OrReal(opts.Clock)
	if opts.Cooldown == 0 {
		opts.Cooldown = DefaultCooldown
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Compressor{opts: opts}
	c.window.Store(int64(opts.Window))
	return c, nil
}

// ShouldCompress reports whether a conversation of estimate tokens has
// passed the compressor's threshold.
func (c *Compressor) ShouldCompress(estimate int) bool {
	return ShouldCompress(estimate, c.Window(), c.opts.ReplyBudget, c.opts.Threshold)
}

// Past reports whether a conversation of estimate tokens fills more than
// share of the usable window, whatever the compressor's own threshold:
// the gateway's hygiene before a turn asks it at 85 %.
func (c *Compressor) Past(estimate int, share float64) bool {
	return ShouldCompress(estimate, c.Window(), c.opts.ReplyBudget, share)
}

// Kept says what compression leaves as it is: the first messages kept
// before the first compression, and the tokens of the tail kept verbatim;
// and past how many tokens it starts by itself. /compress explains with
// them why a short conversation has nothing to summarize.
func (c *Compressor) Kept() (firstN, tailTokens, startsAt int) {
	threshold := c.opts.Threshold
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultThreshold
	}
	return c.opts.ProtectFirstN, TailBudget(c.Window(), c.opts.Threshold, c.opts.TargetRatio),
		int(threshold * float64(Usable(c.Window(), c.opts.ReplyBudget)))
}

// Window is the context window the compressor works to, in tokens.
func (c *Compressor) Window() int { return int(c.window.Load()) }

// SetWindow changes the window, after the provider refused a request as
// longer than it allows (llm.Window.StepDown); a window not larger than
// the reply budget is ignored.
func (c *Compressor) SetWindow(tokens int) {
	if tokens > c.opts.ReplyBudget {
		c.window.Store(int64(tokens))
	}
}

// Worthwhile reports whether msgs hold enough to compress: more than
// twice the tail kept verbatim. When the fixed part of a request (system
// prompt and tool definitions) alone passes the threshold, compressing a
// short conversation would gain nothing and would run again at every
// call; this keeps that from happening.
func (c *Compressor) Worthwhile(msgs []llm.Message) bool {
	return c.Estimate(msgs) > 2*TailBudget(c.Window(), c.opts.Threshold, c.opts.TargetRatio)
}

// Due reports whether automatic compression may run now: false during the
// cooldown after an aborted compression. A forced Compress ignores it.
func (c *Compressor) Due() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.opts.Clock.Now().Before(c.coolingUntil)
}

// Estimate returns the estimated tokens of msgs.
func (c *Compressor) Estimate(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += c.opts.Estimate(m)
	}
	return n
}

// coolDown starts the cooldown after an abort caused by cause.
func (c *Compressor) coolDown(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.coolingUntil = c.opts.Clock.Now().Add(c.opts.Cooldown)
	c.lastAbortCause = cause
}

// cooling returns the end of the cooldown and its cause when one is under
// way.
func (c *Compressor) cooling() (time.Time, error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.Clock.Now().Before(c.coolingUntil) {
		return c.coolingUntil, c.lastAbortCause, true
	}
	return time.Time{}, nil, false
}
