package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Statuses of an Attempt.
const (
	// StatusOK: the part was delivered.
	StatusOK = "ok"
	// StatusRetry: a transient failure; the same target tries again.
	StatusRetry = "retry"
	// StatusFailed: the target gave up (permanent failure, retries used
	// up, or a wait too long); the chain moves on.
	StatusFailed = "failed"
)

// Attempt records one try of one target. Target and Error are masked.
type Attempt struct {
	Target string `json:"target"`
	// Part is set when the message went out in several parts.
	Part     int           `json:"part,omitempty"`
	Try      int           `json:"try"`
	Status   string        `json:"status"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Report is the outcome of one delivery: which target took the message
// (empty if none did, which only happens when the disk fails too) and
// every try on the way.
type Report struct {
	Delivered string    `json:"delivered"`
	Attempts  []Attempt `json:"attempts"`
}

// Err is nil when the message was delivered, else an error quoting the
// last failure of each target tried.
func (r Report) Err() error {
	if r.Delivered != "" {
		return nil
	}
	var last []string
	for i, a := range r.Attempts {
		if a.Status == StatusFailed || i == len(r.Attempts)-1 {
			last = append(last, a.Target+": "+a.Error)
		}
	}
	if len(last) == 0 {
		return errors.New("notify: nothing was tried")
	}
	return fmt.Errorf("notify: not delivered: %s", strings.Join(last, "; "))
}

// Notifier parses targets and delivers messages along chains of them.
// It holds no state between deliveries and is safe for concurrent use.
type Notifier struct {
	cfg Config
}

// New returns a Notifier using cfg for every target it parses and for
// the local file that ends every chain.
func New(cfg Config) *Notifier { return &Notifier{cfg: cfg} }

// Parse parses one target spec with the Notifier's Config.
func (n *Notifier) Parse(spec string) (Target, error) { return Parse(spec, n.cfg) }

// ParseChain parses specs in order, as a job's deliver: list.
func (n *Notifier) ParseChain(specs []string) ([]Target, error) {
	chain := make([]Target, 0, len(specs))
	for i, s := range specs {
		t, err := n.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("deliver[%d]: %w", i, err)
		}
		chain = append(chain, t)
	}
	return chain, nil
}

// Deliver tries the targets of chain in order until one takes the whole
// message. The local file is always the last resort: it is appended when
// the chain has none, and it is still written when ctx is cancelled, so
// a result survives a shutdown. Remote targets are skipped once ctx is
// done.
func (n *Notifier) Deliver(ctx context.Context, chain []Target, msg Message) Report {
	rep := n.deliver(ctx, chain, msg)
	if n.cfg.Delivered != nil {
		n.cfg.Delivered(context.WithoutCancel(ctx), msg, rep)
	}
	return rep
}

// deliver is Deliver without telling Config.Delivered.
func (n *Notifier) deliver(ctx context.Context, chain []Target, msg Message) Report {
	if !hasLocal(chain) {
		chain = append(chain[:len(chain):len(chain)], newLocal(n.cfg, ""))
	}
	var rep Report
	for _, t := range chain {
		tctx := ctx
		if _, ok := t.(*localTarget); ok {
			tctx = context.WithoutCancel(ctx)
		} else if ctx.Err() != nil {
			continue
		}
		if n.deliverTo(tctx, t, msg, &rep) {
			rep.Delivered = t.String()
			return rep
		}
	}
	return rep
}

func hasLocal(chain []Target) bool {
	for _, t := range chain {
		if _, ok := t.(*localTarget); ok {
			return true
		}
	}
	return false
}

// deliverTo sends every part of msg to t, retrying transient failures,
// and reports whether all parts went out.
func (n *Notifier) deliverTo(ctx context.Context, t Target, msg Message, rep *Report) bool {
	var m masker
	if s, ok := t.(secretHolder); ok {
		m = newMasker(s.secrets())
	}
	backoff := n.cfg.backoff()
	log := n.cfg.logger()
	parts := t.Split(msg)
	for _, p := range parts {
		for try := 1; ; try++ {
			start := time.Now()
			err := t.Send(ctx, p)
			a := Attempt{Target: t.String(), Try: try, Status: StatusOK, Duration: time.Since(start)}
			if p.Count > 1 {
				a.Part = p.Index
			}
			var wait time.Duration
			if err != nil {
				a.Error = m.mask(err.Error())
				a.Status, wait = n.next(ctx, err, try, backoff)
			}
			rep.Attempts = append(rep.Attempts, a)
			n.logAttempt(log, msg, a)
			if n.cfg.OnAttempt != nil {
				n.cfg.OnAttempt(a)
			}
			if a.Status == StatusOK {
				break
			}
			if a.Status == StatusFailed {
				return false
			}
			if err := n.cfg.clock().Sleep(ctx, wait); err != nil {
				rep.Attempts[len(rep.Attempts)-1].Status = StatusFailed
				return false
			}
		}
	}
	return true
}

// next decides what follows a failed try: another one after wait, or
// giving up on the target.
func (n *Notifier) next(ctx context.Context, err error, try int, backoff []time.Duration) (string, time.Duration) {
	transient, asked := classify(err)
	if !transient || try > len(backoff) || ctx.Err() != nil || asked > MaxRetryAfter {
		return StatusFailed, 0
	}
	if asked > 0 {
		return StatusRetry, asked
	}
	return StatusRetry, backoff[try-1]
}

func (n *Notifier) logAttempt(log *slog.Logger, msg Message, a Attempt) {
	attrs := []any{
		slog.String("target", a.Target), slog.Int("try", a.Try), slog.String("status", a.Status),
		slog.Int64("duration_ms", a.Duration.Milliseconds()),
		slog.String("job", msg.Job), slog.String("run_id", msg.RunID),
	}
	if a.Part > 0 {
		attrs = append(attrs, slog.Int("part", a.Part))
	}
	if a.Error != "" {
		attrs = append(attrs, slog.String("error", a.Error))
		log.Warn("notify: delivery try failed", attrs...)
		return
	}
	log.Info("notify: delivered", attrs...)
}
