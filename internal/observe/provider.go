package observe

import (
	"context"
	"iter"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/trace"
)

// provider watches the model calls of one turn.
type provider struct {
	llm.Provider
	t *turn
}

// Stream makes the call in a chat span under the turn's, and records its
// latency, tokens and cost once it ends — also when the caller stops
// reading early.
func (p *provider) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	return func(yield func(llm.Event) bool) {
		o := p.t.o
		start := o.opt.Clock.Now()
		ctx, span := o.opt.Tracer.Start(ctx, opChat+" "+req.Model, trace.KindClient,
			trace.String("gen_ai.operation.name", opChat),
			trace.String("gen_ai.provider.name", p.Name()),
			trace.String("gen_ai.request.model", req.Model),
			trace.String("gen_ai.conversation.id", p.t.info.SessionID))
		var (
			resp *llm.Response
			err  error
			done bool
		)
		defer func() {
			if !done && err == nil {
				err = context.Canceled
			}
			p.record(req, resp, err, o.since(start), span)
		}()
		for ev := range p.Provider.Stream(ctx, req) {
			switch ev.Kind {
			case llm.EventDone:
				resp, done = ev.Response, true
			case llm.EventError:
				resp, err, done = ev.Response, ev.Err, true
			}
			if !yield(ev) {
				return
			}
		}
	}
}

// record counts one finished call and ends its span.
func (p *provider) record(req *llm.Request, resp *llm.Response, err error, d time.Duration, span *trace.Span) {
	o := p.t.o
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	model := req.Model
	var u llm.Usage
	if resp != nil {
		u = resp.Usage
		if resp.Model != "" {
			model = resp.Model
		}
	}
	if m := o.opt.Metrics; m != nil {
		m.ModelCall(req.Model, outcome, d)
		var cost float64
		if pr, ok := llm.PriceOf(model, o.opt.Prices); ok {
			cost = llm.Cost(pr, u)
		}
		m.Usage(req.Model, p.t.info.User, u.InputTokens, u.OutputTokens, cost)
	}
	if span == nil {
		return
	}
	span.Set(trace.String("gen_ai.response.model", model),
		trace.Int("gen_ai.usage.input_tokens", u.InputTokens),
		trace.Int("gen_ai.usage.output_tokens", u.OutputTokens))
	if resp != nil {
		if resp.ID != "" {
			span.Set(trace.String("gen_ai.response.id", resp.ID))
		}
		if resp.FinishReason != "" {
			span.Set(trace.Strings("gen_ai.response.finish_reasons", []string{string(resp.FinishReason)}))
		}
	}
	if err != nil {
		span.Fail(errorType(err, ""), o.opt.Redact(err.Error()))
	}
	span.End()
}
