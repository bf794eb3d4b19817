package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// Interrupting the parent while three children hang in their model calls
// stops every one of them: the parent's turn ends without the calls
// being answered.
func TestDelegateInterruptStopsEveryChild(t *testing.T) {
	d := newDelegation(t, engine.Delegation{})
	started := make(chan string, 3)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		first := firstUser(r)
		if strings.HasPrefix(first, "Work") {
			return delegateCall("one", "two", "three")
		}
		started <- first
		<-release
		return llmtest.Reply{Text: "too late"}
	})
	ctx, cancel := context.WithCancel(t.Context())
	var res results
	done := make(chan *engine.TurnResult)
	go func() {
		turn, err := d.e.Turn(ctx, "", engine.Input{Text: "Work"}, &res)
		if err != nil {
			t.Error(err)
		}
		done <- turn
	}()
	for range 3 {
		<-started
	}
	cancel()
	// The turn ends while every child's model call still hangs: each
	// child was stopped.
	turn := <-done
	if turn == nil || turn.Stopped != agent.StopInterrupted {
		t.Fatalf("parent turn %+v", turn)
	}
	kids, err := d.st.List(t.Context(), session.ListOptions{ParentID: turn.SessionID})
	if err != nil || len(kids) != 3 {
		t.Fatalf("children of the interrupted turn: %v %+v, want 3", err, kids)
	}
	if !strings.Contains(res.raw, "interrupted") {
		t.Errorf("the parent's sink saw %s", res.raw)
	}
}

// A child whose model call hangs is stopped by child_timeout, or by the
// idle limit, and reports the calls it had made and its session.
func TestDelegateHungChildEndsByTimeout(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cfg     engine.Delegation
		advance time.Duration
		reason  string
	}{
		{"child_timeout", engine.Delegation{ChildTimeout: time.Minute, IdleTimeout: 10000 * time.Hour}, time.Minute, "delegation.child_timeout"},
		{"idle", engine.Delegation{ChildTimeout: 10000 * time.Hour, IdleTimeout: time.Minute}, time.Minute, "delegation.child_idle_timeout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newDelegation(t, tt.cfg)
			hung := make(chan struct{})
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
				first := firstUser(r)
				switch {
				case strings.HasPrefix(first, "Work"):
					if r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
						return llmtest.Reply{Text: "two of three"}
					}
					return delegateCall("hang")
				case strings.HasPrefix(first, "hang"):
					if r.Messages[len(r.Messages)-1].Role != llm.RoleTool {
						return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: `{"text":"half"}`}}}
					}
					close(hung)
					<-release
				}
				return llmtest.Reply{Text: "finished " + first[:4]}
			})
			var res results
			done := make(chan error)
			go func() {
				_, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Work"}, &res)
				done <- err
			}()
			<-hung
			for {
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
					if got := res.statuses(); !slices.Equal(got, []string{"timed out"}) {
						t.Fatalf("statuses %v in %s", got, res.raw)
					}
					if g := res.got[0]; !strings.Contains(g.Reason, tt.reason) || g.SessionID == "" || !strings.Contains(g.Summary, "echo (ok)") {
						t.Errorf("the hung child's result %+v, want a reason naming %s, its session and the call it made", g, tt.reason)
					}
					return
				default:
					d.clock.Advance(tt.advance)
					runtime.Gosched()
				}
			}
		})
	}
}

// approveProbe asks the call's approver about a dangerous command and
// says what it answered.
type approveProbe struct{}

func (approveProbe) Spec() tool.Spec {
	return tool.Spec{Name: "probe", Description: "Asks about rm -rf.", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (approveProbe) Call(ctx context.Context, _ json.RawMessage) (any, error) {
	a := tool.InvocationFrom(ctx).Approver
	if a == nil {
		return "denied: nobody to ask", nil
	}
	if err := a.ApproveCommand(ctx, "rm -rf /srv"); err != nil {
		return "denied: " + err.Error(), nil
	}
	return "approved", nil
}

type allowAll struct{}

func (allowAll) ApproveCommand(context.Context, string) error { return nil }

// A child's dangerous commands are refused unless the configuration lets
// the parent's approver decide; a child calls the configured model.
func TestDelegateChildApprovalsAndModel(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  engine.Delegation
		want string
	}{
		{"deny", engine.Delegation{}, "denied"},
		{"parent", engine.Delegation{ParentApproves: true}, "approved"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			tt.cfg.Model = &engine.Model{Provider: model(srv).m.Provider, Name: "child-model"}
			d := newDelegationOn(t, srv, tt.cfg, approveProbe{})
			var answer, childModel string
			d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
				first := firstUser(r)
				last := r.Messages[len(r.Messages)-1]
				switch {
				case strings.HasPrefix(first, "Go"):
					if last.Role == llm.RoleTool {
						return llmtest.Reply{Text: "ok"}
					}
					return delegateCall("probe it")
				case last.Role == llm.RoleTool:
					answer, childModel = last.Text(), r.Model
					return llmtest.Reply{Text: "probed"}
				}
				return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "probe", Arguments: "{}"}}}
			})
			if _, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Go", Approver: allowAll{}}, nil); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(answer, tt.want) || childModel != "child-model" {
				t.Errorf("the child's probe said %s on model %q, want %s on child-model", answer, childModel, tt.want)
			}
		})
	}
}

// No more than max_concurrent_children run at once; the rest wait for a
// slot, without a session yet, and still come back in task order.
func TestDelegateConcurrencyLimit(t *testing.T) {
	d := newDelegation(t, engine.Delegation{MaxConcurrent: 2})
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	var mu sync.Mutex
	inflight, most := 0, 0
	d.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		first := firstUser(r)
		if strings.HasPrefix(first, "Go") {
			if r.Messages[len(r.Messages)-1].Role == llm.RoleTool {
				return llmtest.Reply{Text: "ok"}
			}
			return delegateCall("t0", "t1", "t2", "t3")
		}
		mu.Lock()
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		started <- struct{}{}
		<-release
		mu.Lock()
		inflight--
		mu.Unlock()
		return llmtest.Reply{Text: "did " + first[:2]}
	})
	var res results
	done := make(chan error)
	go func() {
		_, err := d.e.Turn(t.Context(), "", engine.Input{Text: "Go"}, &res)
		done <- err
	}()
	<-started
	<-started
	// Two children are in their model calls and hold their slots: the
	// other two have not even made their sessions.
	kids, err := d.st.List(t.Context(), session.ListOptions{Source: "delegate"})
	if err != nil || len(kids) != 2 {
		t.Errorf("%d child sessions while two children hold the slots, want 2: %v", len(kids), err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if most > 2 {
		t.Errorf("%d children ran at once, want at most 2 (delegation.max_concurrent_children)", most)
	}
	if len(res.got) != 4 {
		t.Fatalf("%d results, want 4", len(res.got))
	}
	for i, g := range res.got {
		if want := fmt.Sprintf("did t%d", i); g.Summary != want {
			t.Errorf("result %d = %+v, want %q", i, g, want)
		}
	}
}
