package llm

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/lazy"
)

// MinContextWindow is the floor StepDown never goes below: a window smaller
// than this cannot hold a system prompt, the tool definitions and a turn,
// so shrinking further would only make compression loop.
const MinContextWindow = 8_192

// WindowSource says where a Window's current size came from.
type WindowSource string

// The sources, from most to least trusted.
const (
	SourceOverflow   WindowSource = "overflow"
	SourceConfigured WindowSource = "configured"
	SourceProbed     WindowSource = "probed"
	SourceTable      WindowSource = "table"
	SourceDefault    WindowSource = "default"
)

// Window is the context window hermes plans one model's requests against.
// It resolves, in order: a size learned from a context_overflow error
// (StepDown), the configured size, the size the server reported (Probe),
// the built-in table (ContextWindow), and DefaultContextWindow. An overflow
// outranks the configuration because the server has just shown that the
// configured size does not fit. Window is safe for concurrent use.
type Window struct {
	mu         sync.Mutex
	model      string
	configured int
	probed     int
	stepped    int
}

// NewWindow returns the window of model; configured is the size set in the
// provider's configuration, zero when none is.
func NewWindow(model string, configured int) *Window {
	return &Window{model: model, configured: max(configured, 0)}
}

// Tokens returns the current window size.
func (w *Window) Tokens() int {
	n, _ := w.Resolve()
	return n
}

// Resolve returns the current window size and where it came from.
func (w *Window) Resolve() (int, WindowSource) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.resolve()
}

func (w *Window) resolve() (int, WindowSource) {
	switch {
	case w.stepped > 0:
		return w.stepped, SourceOverflow
	case w.configured > 0:
		return w.configured, SourceConfigured
	case w.probed > 0:
		return w.probed, SourceProbed
	}
	if n, ok := ContextWindow(w.model); ok {
		return n, SourceTable
	}
	return DefaultContextWindow, SourceDefault
}

// SetProbed records a size reported by the server; zero or less is ignored.
func (w *Window) SetProbed(n int) {
	if n <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.probed = n
}

// Probe asks the server with ProbeContextWindow and records the answer. On
// failure the window keeps resolving from the table, and the error says
// what was tried, for a debug log.
func (w *Window) Probe(ctx context.Context, ep Endpoint, client *http.Client) error {
	if ep.Model == "" {
		ep.Model = w.model
	}
	n, err := ProbeContextWindow(ctx, ep, client)
	if err != nil {
		return err
	}
	w.SetProbed(n)
	return nil
}

// overflowLimits find the window size in context_overflow messages. Each
// pattern's last group is the limit. They are compiled on first use.
var overflowLimits = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// OpenAI, vLLM, DeepSeek, Groq, OpenRouter: "This model's maximum
		// context length is 8192 tokens. However, you requested 9000 tokens".
		regexp.MustCompile(`(?i)maximum context length is\s+(\d[\d,]*)`),
		// Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
		regexp.MustCompile(`(?i)(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*maximum`),
		// Mistral: "too large for model with 32768 maximum context length".
		regexp.MustCompile(`(?i)(\d[\d,]*)\s+maximum context length`),
		// Gemini: "exceeds the maximum number of tokens allowed (1048576)".
		regexp.MustCompile(`(?i)maximum number of tokens allowed\s*\((\d[\d,]*)\)`),
		// llama.cpp server: "exceeds the available context size (4096 tokens)".
		regexp.MustCompile(`(?i)available context size\s*\((\d[\d,]*)`),
		// LM Studio: "loaded with context length of only 4096 tokens"; others:
		// "context window of 8192 tokens".
		regexp.MustCompile(`(?i)context (?:length|window|size) of (?:only\s+)?(\d[\d,]*)`),
		// Hugging Face TGI (Together): "`inputs` tokens + `max_new_tokens`
		// must be <= 8193".
		regexp.MustCompile("(?i)max_new_tokens`?\\s+must be <=\\s*(\\d[\\d,]*)"),
	}
}}

// OverflowLimit extracts the context window a context_overflow message
// states, or reports false when it states none.
func OverflowLimit(msg string) (int, bool) {
	for _, re := range overflowLimits.Get() {
		m := re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(m[len(m)-1], ",", ""))
		if err == nil && n > 0 {
			return n, true
		}
	}
	return 0, false
}

// StepDown shrinks the window after a context_overflow error (an *Error of
// kind ErrContextOverflow; pass its Message) and returns the new size. When
// the message states a limit smaller than the current window, that limit is
// used. Otherwise, because the window was already at most the stated limit
// (so hermes's estimate ran short) or no limit was stated, the window drops
// to three quarters of its current size. It never goes below
// MinContextWindow.
func (w *Window) StepDown(errMsg string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	cur, _ := w.resolve()
	next := cur * 3 / 4
	if n, ok := OverflowLimit(errMsg); ok && n < cur {
		next = n
	}
	w.stepped = max(next, MinContextWindow)
	return w.stepped
}
