package gateway

import (
	"context"
	"log/slog"
)

// Elector elects, among the replicas of hermes sharing a database, the
// one that receives from a platform allowing one consumer; PostgreSQL's
// advisory locks are one (internal/pgdb).
type Elector interface {
	// Lead waits until this replica leads name and returns the lease;
	// it fails only when ctx ends.
	Lead(ctx context.Context, name string) (Lease, error)
}

// Lease is leadership of one name, held until lost or released.
type Lease interface {
	// Lost is closed when another replica may lead.
	Lost() <-chan struct{}
	// Release gives the leadership up.
	Release() error
}

// receive hands p's events to the runner until ctx ends: at once, or,
// for a platform that allows one consumer when there is an Elector,
// only during the terms this replica leads the platform's name. When a
// term is lost, receiving stops (turns already taken go on) and the
// replica waits to lead again; meanwhile another receives.
func (r *Runner) receive(ctx context.Context, p Platform) error {
	deliver := func(ctx context.Context, ev Event) error { return r.deliver(ctx, p, ev) }
	if r.opt.Elector == nil || !p.Caps().OneConsumer {
		return p.Receive(ctx, deliver)
	}
	for {
		lease, err := r.opt.Elector.Lead(ctx, p.Name())
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		r.log.Info("gateway: this replica receives from the platform", slog.String("platform", p.Name()))
		term, end := context.WithCancel(ctx)
		go func() {
			select {
			case <-lease.Lost():
				end()
			case <-term.Done():
			}
		}()
		err = p.Receive(term, deliver)
		end()
		lost := false
		select {
		case <-lease.Lost():
			lost = true
		default:
		}
		if rerr := lease.Release(); rerr != nil && !lost {
			r.log.Warn("gateway: releasing the platform's leadership", slog.String("platform", p.Name()), slog.String("error", rerr.Error()))
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case lost:
			r.log.Warn("gateway: this replica no longer leads the platform; another receives while it waits to lead again", slog.String("platform", p.Name()))
		default:
			// Receive stopped for good (a refused token): another
			// replica may fare better, but this one stops as alone.
			return err
		}
	}
}
