package app

import (
	"context"
	"time"

	"github.com/hermes-go/hermes/internal/cron"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/metrics"
	"github.com/hermes-go/hermes/internal/observe"
	"github.com/hermes-go/hermes/internal/trace"
)

// openMetrics builds the process's metrics, which every process keeps
// (hermes serve even when it holds only the stores, for its scheduler).
func (a *App) openMetrics() {
	a.Metrics = metrics.New()
	a.Metrics.Queue("tasks", a.queuedTasks)
}

// openTracer builds, when observability.otlp_endpoint is set, the tracer
// that exports spans to it; without an endpoint there is no tracer and
// spans cost nothing. The tracer is closed — what is queued sent — after
// the engine, so the spans of the last turns go too.
func (a *App) openTracer() error {
	o := a.Config.Config.Observability
	if o.OTLPEndpoint == "" {
		return nil
	}
	headers := make(map[string]string, len(o.OTLPHeaders))
	for k, v := range o.OTLPHeaders {
		headers[k] = string(v)
	}
	tr, err := trace.New(trace.Options{Endpoint: o.OTLPEndpoint, Headers: headers, Service: "hermes",
		Dropped: a.Metrics.SpansDropped, Clock: a.opts.Clock, Logger: a.Log})
	if err != nil {
		return err
	}
	a.Tracer = tr
	a.onClose(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tr.Close(ctx); err != nil {
			a.Log.Warn(err.Error())
		}
	})
	return nil
}

// observer watches the engine's turns for the metrics and the tracer.
func (a *App) observer() engine.Observer {
	return observe.New(observe.Options{Metrics: a.Metrics, Tracer: a.Tracer, Prices: prices(a.Config.Config),
		Redact: newLiveRedactor(a).Redact, Clock: a.opts.Clock})
}

// queuedTasks is the length of the team task queue: the tasks waiting or
// ready for a worker. It is read at each scrape; an unreadable queue
// reads as -1.
func (a *App) queuedTasks() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	n, err := a.Team.Queued(ctx)
	if err != nil {
		return -1
	}
	return n
}

// countUndelivered counts each message to platform the outbox gave up
// on, then hands it to next (which may be nil).
func (a *App) countUndelivered(platform string, next func(context.Context, gateway.Undelivered) error) func(context.Context, gateway.Undelivered) error {
	return func(ctx context.Context, u gateway.Undelivered) error {
		a.Metrics.GatewaySendFailure(platform)
		if next == nil {
			return nil
		}
		return next(ctx, u)
	}
}

// queued is what waits in the outboxes.
func queued(boxes map[string]*gateway.Outbox) int {
	n := 0
	for _, b := range boxes {
		n += b.Queued()
	}
	return n
}

// countedRunner counts the scheduler's runs: each fire, the catch-ups (a
// run that started more than the schedule's grace after the fire it is
// for: hermes was down or asleep) and the runs that failed.
func (a *App) countedRunner(r cron.Runner) cron.Runner {
	return cron.RunnerFunc(func(ctx context.Context, job cron.Job, at time.Time) cron.RunResult {
		started := a.opts.Clock.Now()
		res := r.Run(ctx, job, at)
		catchUp := false
		if s, err := cron.Parse(job.Schedule, job.Timezone, at); err == nil {
			catchUp = started.Sub(at) > cron.Grace(s)
		}
		a.Metrics.SchedulerFire(catchUp, res.Err != nil || res.Status == cron.StatusError)
		return res
	})
}
