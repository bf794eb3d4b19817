package engine

import (
	"context"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/llm"
)

// Observer watches turns as they run, for metrics and traces. It sees
// what every front sees — the turn's events — plus the model calls, and
// changes nothing of the turn.
type Observer interface {
	// Turn is called once a turn's session and model are known, right
	// before the loop starts. The context it returns is the turn's from
	// then on (a trace span rides in it); the TurnObserver watches the
	// rest of the turn.
	Turn(ctx context.Context, t TurnInfo) (context.Context, TurnObserver)
}

// TurnInfo is what an Observer is told about a turn as it starts.
type TurnInfo struct {
	SessionID string
	// Source is the front the session came from ("cli", "telegram").
	Source string
	// Model is the model the turn calls.
	Model string
	// Agent is the role agent the session runs as, if any.
	Agent string
	// User is the id of the user the session belongs to (Input.User);
	// empty is the local owner.
	User string
}

// TurnObserver watches one turn. Its Event is called from the turn's
// goroutine and from tool workers, so it must be safe for concurrent use.
type TurnObserver interface {
	agent.Sink
	// Provider wraps the turn's model to watch its calls.
	Provider(p llm.Provider) llm.Provider
	// End is called once with the turn's result.
	End(res *agent.Result)
}

// observed is one turn's observer, or nothing when the engine has none.
type observed struct{ o TurnObserver }

// observe starts watching a turn; without an Observer it changes nothing.
func (e *Engine) observe(ctx context.Context, t TurnInfo) (context.Context, observed) {
	if e.opt.Observer == nil {
		return ctx, observed{}
	}
	ctx, o := e.opt.Observer.Turn(ctx, t)
	return ctx, observed{o}
}

// provider is p, watched.
func (ob observed) provider(p llm.Provider) llm.Provider {
	if ob.o == nil {
		return p
	}
	return ob.o.Provider(p)
}

// sink sends each event to the observer, then to the front's sink.
func (ob observed) sink(front agent.Sink) agent.Sink {
	if ob.o == nil {
		return front
	}
	if front == nil {
		return ob.o
	}
	return agent.SinkFunc(func(ev agent.Event) {
		ob.o.Event(ev)
		front.Event(ev)
	})
}

// end tells the observer the turn ended.
func (ob observed) end(res *agent.Result) {
	if ob.o != nil {
		ob.o.End(res)
	}
}
