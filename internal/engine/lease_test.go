package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/sqlite"
)

// leaseRig is two engines, as two processes would have, sharing one
// state.db on a fake clock.
type leaseRig struct {
	st   *sqlite.Store
	srv  *llmtest.Server
	fake *clock.Fake
	sess *session.Session
}

func newLeaseRig(t *testing.T) *leaseRig {
	st, _ := openStore(t)
	rig := &leaseRig{st: st, srv: llmtest.New(t), fake: clock.NewFake(time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC))}
	rig.sess = &session.Session{Source: "cli"}
	if err := st.Create(context.Background(), rig.sess); err != nil {
		t.Fatal(err)
	}
	return rig
}

// engine is one process's engine, named holder.
func (rig *leaseRig) engine(t *testing.T, holder string, wait time.Duration) *engine.Engine {
	e := engine.New(engine.Options{Store: rig.st, Models: model(rig.srv), Tools: engine.Tools{Registry: registry(t)},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are a test.")}, Clock: rig.fake, Holder: holder, LeaseWait: wait})
	t.Cleanup(e.Close)
	return e
}

// hold takes the session's lease for holder, as a process running a turn
// in it does.
func (rig *leaseRig) hold(t *testing.T, holder string) {
	t.Helper()
	got, err := rig.st.AcquireLease(context.Background(), session.LeaseRequest{SessionID: rig.sess.ID, Holder: holder, Now: rig.fake.Now(), TTL: 30 * time.Second})
	if err != nil || !got.Held {
		t.Fatalf("holding the lease for %s: %+v %v", holder, got, err)
	}
}

// turn runs a turn in the rig's session in the background.
func (rig *leaseRig) turn(e *engine.Engine, text string, waiting chan string) <-chan error {
	done := make(chan error, 1)
	go func() {
		in := engine.Input{Text: text}
		if waiting != nil {
			in.Waiting = func(h string) { waiting <- h }
		}
		res, err := e.Turn(context.Background(), rig.sess.ID, in, nil)
		if err == nil && res.Stopped != agent.StopDone {
			err = fmt.Errorf("stopped %s: %v", res.Stopped, res.Err)
		}
		done <- err
	}()
	return done
}

// A turn in a session another process is running a turn in waits for it
// to end, then runs: the history alternates as it should.
func TestTurnWaitsForAnotherProcessesTurn(t *testing.T) {
	rig := newLeaseRig(t)
	rig.srv.Enqueue(llmtest.Reply{Text: "answered"})
	rig.hold(t, "other-host/7")
	waiting := make(chan string, 1)
	done := rig.turn(rig.engine(t, "this-host/1", time.Minute), "my question", waiting)
	select {
	case h := <-waiting:
		if h != "other-host/7" {
			t.Errorf("waiting for %q, want the holder other-host/7", h)
		}
	case err := <-done:
		t.Fatalf("the turn ended (%v) without waiting for the process holding the session", err)
	}
	rig.fake.BlockUntil(1) // the turn waits for its next look
	if n := len(rig.srv.Requests()); n != 0 {
		t.Fatalf("the model was called %d times while another process held the session", n)
	}
	// The other process's turn ends.
	rig.st.Append(context.Background(), rig.sess.ID,
		&session.Message{Message: llm.UserMessage("their question")}, &session.Message{Message: llm.AssistantMessage("their answer")})
	if err := rig.st.ReleaseLease(context.Background(), rig.sess.ID, "other-host/7"); err != nil {
		t.Fatal(err)
	}
	rig.fake.Advance(time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msgs, _ := rig.st.Messages(context.Background(), rig.sess.ID)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant user assistant" {
		t.Errorf("stored roles %s", got)
	}
	// The lease was released with the turn.
	got, _ := rig.st.AcquireLease(context.Background(), session.LeaseRequest{SessionID: rig.sess.ID, Holder: "other-host/7", Now: rig.fake.Now(), TTL: time.Second})
	if !got.Held {
		t.Errorf("the lease is still held after the turn: %+v", got)
	}
}

// A turn that waited its bound out fails with a *BusyError naming the
// process that holds the session; one that may not wait fails at once.
func TestTurnInBusySessionFails(t *testing.T) {
	rig := newLeaseRig(t)
	rig.hold(t, "other-host/7")
	_, err := rig.engine(t, "this-host/1", -1).Turn(context.Background(), rig.sess.ID, engine.Input{Text: "hi"}, nil)
	var busy *engine.BusyError
	if !errors.As(err, &busy) || busy.Holder != "other-host/7" || !strings.Contains(err.Error(), "busy") || !strings.Contains(err.Error(), "other-host/7") {
		t.Fatalf("err = %v, want a BusyError naming other-host/7", err)
	}

	done := rig.turn(rig.engine(t, "this-host/2", 2*time.Second), "hi", nil)
	for range 8 {
		rig.fake.BlockUntil(1)
		rig.fake.Advance(250 * time.Millisecond)
	}
	if err := <-done; !errors.As(err, &busy) || busy.Waited < 2*time.Second {
		t.Fatalf("after waiting: %v, want a BusyError after 2s", err)
	}
	if n := len(rig.srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
}

// The lease of a holder that stopped renewing it is taken over once it
// expires; that of a process on this host that is gone, at once.
func TestDeadHoldersLeaseIsTakenOver(t *testing.T) {
	rig := newLeaseRig(t)
	rig.srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	rig.hold(t, "other-host/7")
	done := rig.turn(rig.engine(t, "this-host/1", time.Minute), "hi", nil)
	rig.fake.BlockUntil(1)
	rig.fake.Advance(30 * time.Second)
	if err := <-done; err != nil {
		t.Fatalf("after the lease expired: %v", err)
	}

	host, _ := os.Hostname()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	rig.hold(t, fmt.Sprintf("%s/%d", host, dead.Process.Pid))
	if _, err := rig.engine(t, "", -1).Turn(context.Background(), rig.sess.ID, engine.Input{Text: "hi"}, nil); err != nil {
		t.Fatalf("the lease of a process that is gone was not taken over: %v", err)
	}
}

// A turn keeps its lease renewed however long it runs, and one whose
// lease was taken over anyway stops rather than write beside the new
// holder.
func TestLeaseIsRenewedWhileTheTurnRuns(t *testing.T) {
	rig := newLeaseRig(t)
	arrived, answer := make(chan struct{}, 2), make(chan struct{})
	rig.srv.Handle(func(llmtest.Request) llmtest.Reply {
		arrived <- struct{}{}
		<-answer
		return llmtest.Reply{Text: "slow answer"}
	})
	done := rig.turn(rig.engine(t, "this-host/1", time.Minute), "take your time", nil)
	<-arrived
	for range 6 { // a minute, twice the lease's life
		rig.fake.BlockUntil(1)
		rig.fake.Advance(10 * time.Second)
	}
	rig.fake.BlockUntil(1) // renewed, and waiting for the next renewal
	got, err := rig.st.AcquireLease(context.Background(), session.LeaseRequest{SessionID: rig.sess.ID, Holder: "other-host/7", Now: rig.fake.Now(), TTL: time.Second})
	if err != nil || got.Held || got.Holder != "this-host/1" {
		t.Fatalf("a minute into the turn the lease is %+v (%v), want it held by this-host/1", got, err)
	}
	answer <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// Another process takes the lease over (this one looked gone).
	done = rig.turn(rig.engine(t, "this-host/2", time.Minute), "again", nil)
	<-arrived
	rig.fake.BlockUntil(1)
	if got, err := rig.st.AcquireLease(context.Background(), session.LeaseRequest{SessionID: rig.sess.ID, Holder: "other-host/7",
		Now: rig.fake.Now(), TTL: time.Minute, Replace: "this-host/2"}); err != nil || !got.Held {
		t.Fatalf("taking the lease over: %+v %v", got, err)
	}
	rig.fake.Advance(10 * time.Second)
	err = <-done
	close(answer)
	if err == nil || !strings.Contains(err.Error(), "taken over by hermes process other-host/7") {
		t.Errorf("the turn whose lease was taken ended with %v", err)
	}
}

// A turn that compresses its conversation goes on in a child session;
// the child is leased to the turn before it is written, so a process
// continuing the newest session cannot write to it meanwhile.
func TestCompressedSessionIsLeasedToo(t *testing.T) {
	rig := newCompressionRig(t, "")
	st := rig.st.(session.Leaser)
	var (
		compressed bool
		checked    []session.Lease
	)
	rig.srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if isSummary(r) {
			rig.mu.Lock()
			rig.summary = append(rig.summary, r)
			compressed = true
			rig.mu.Unlock()
			return llmtest.Reply{Text: summaryText}
		}
		rig.mu.Lock()
		if compressed {
			compressed = false
			newest, err := rig.st.Latest(context.Background(), "cli")
			if err == nil && newest.ParentID != "" {
				got, _ := st.AcquireLease(context.Background(), session.LeaseRequest{SessionID: newest.ID, Holder: "intruder/1", Now: time.Now(), TTL: time.Minute})
				checked = append(checked, got)
			}
		}
		rig.mu.Unlock()
		if last := r.Messages[len(r.Messages)-1]; last.Role == llm.RoleUser {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "echo", Arguments: fmt.Sprintf(`{"text":%q}`, strings.Repeat("log line ", 250))}}}
		}
		return llmtest.Reply{Text: "Rotated that host."}
	})
	id := ""
	for i := 1; i <= 12 && rig.summaries() < 1; i++ {
		id = rig.turn(t, id, fmt.Sprintf("rotate logs on host %d", i))
	}
	rig.mu.Lock()
	defer rig.mu.Unlock()
	if len(checked) == 0 {
		t.Fatal("no turn went on in a compressed session")
	}
	for _, l := range checked {
		if l.Held || l.Holder == "" {
			t.Errorf("the compressed session was free while the turn ran in it: %+v", l)
		}
	}
}
