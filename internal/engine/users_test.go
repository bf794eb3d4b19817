package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/memory/facts"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// userRig is an engine with two users of two tenants, each with a
// memory of their own holding a note, a shared memory holding another,
// and the analyst agent (with a memory of its own) both may run as.
type userRig struct {
	e        *engine.Engine
	srv      *llmtest.Server
	st       session.Store
	dirs     map[string]string
	refusing map[string]bool
}

func newUserRig(t *testing.T) *userRig {
	t.Helper()
	r := &userRig{srv: llmtest.New(t), dirs: map[string]string{}, refusing: map[string]bool{}}
	root := t.TempDir()
	stores := map[string]*memory.Store{}
	for name, note := range map[string]string{"shared": "SHARED-NOTE", "ana": "ANA-NOTE", "bob": "BOB-NOTE", "analyst": "ANALYST-NOTE"} {
		r.dirs[name] = filepath.Join(root, name)
		stores[name] = memory.Open(r.dirs[name], memory.Limits{})
		if _, err := stores[name].Apply([]memory.Op{{Action: "add", Target: memory.TargetMemory, Content: note}}); err != nil {
			t.Fatal(err)
		}
	}
	r.st, _ = openStore(t)
	r.e = engine.New(engine.Options{
		Store:  r.st,
		Models: namedModels{r.srv},
		Tools:  engine.Tools{Registry: registry(t, memory.NewTool(stores["shared"]), setTool{"search", "search"}, setTool{"files", "files"})},
		Prompt: engine.PromptSources{Home: soulHome(t, "You are hermes."), Memory: stores["shared"]},
		Agents: map[string]*engine.Agent{"analyst": {Name: "analyst", Soul: "You are the analyst.", Memory: stores["analyst"]}},
		Users: map[string]*engine.User{
			"ana": {ID: "ana", Tenant: "acme", Toolsets: []string{"memory", "files"}, Model: "acme-model", Memory: stores["ana"]},
			"bob": {ID: "bob", Tenant: "globex", Memory: stores["bob"]},
			"cy":  {ID: "cy", Tenant: "globex", Memory: stores["bob"], Allow: []string{"search"}},
		},
		Admit: func(_ context.Context, user string) error {
			if r.refusing[user] {
				return &engine.RefusedError{Reason: user + " has used today's budget"}
			}
			return nil
		},
	})
	t.Cleanup(r.e.Close)
	return r
}

// TestUserTurn: a user's turn records the user and tenant, reads and
// writes the user's memory (never the shared one or an agent's, which
// other users share), is offered only the user's toolsets and calls the
// tenant's model.
func TestUserTurn(t *testing.T) {
	r := newUserRig(t)
	r.srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "memory", Arguments: `{"action":"add","target":"memory","content":"learned for ana"}`}}},
		llmtest.Reply{Text: "noted"},
	)
	res, err := r.e.Turn(t.Context(), "", engine.Input{Text: "remember this", User: "ana", Agent: "analyst", Model: "big-model"}, nil)
	if err != nil || res.Final != "noted" {
		t.Fatalf("turn: %v %+v", err, res)
	}
	s, err := r.st.Get(t.Context(), res.SessionID)
	if err != nil || s.User != "ana" || s.Tenant != "acme" || s.Agent != "analyst" {
		t.Fatalf("session = %+v, %v", s, err)
	}
	req := r.srv.Requests()[0]
	system := req.Messages[0].Text()
	if !strings.Contains(system, "ANA-NOTE") || strings.Contains(system, "SHARED-NOTE") || strings.Contains(system, "ANALYST-NOTE") || strings.Contains(system, "BOB-NOTE") {
		t.Errorf("the prompt's memory is not ana's alone:\n%s", system)
	}
	if req.Model != "acme-model" {
		t.Errorf("model %q, want the tenant's acme-model, whatever the input named", req.Model)
	}
	var offered []string
	for _, tl := range req.Tools {
		offered = append(offered, tl.Name)
	}
	slices.Sort(offered)
	if !slices.Equal(offered, []string{"files", "memory"}) {
		t.Errorf("offered %v, want ana's toolsets only (files, memory)", offered)
	}
	if got := readMemory(t, r.dirs["ana"]); !strings.Contains(got, "learned for ana") {
		t.Errorf("ana's memory = %q", got)
	}
	for _, other := range []string{"shared", "analyst", "bob"} {
		if strings.Contains(readMemory(t, r.dirs[other]), "learned for ana") {
			t.Errorf("ana's note went to the %s memory", other)
		}
	}
}

// TestUserCannotContinueAnothersSession: bob continuing ana's session
// is told it does not exist, as for an id that does not, and nothing
// reaches the model; the owner continuing it runs as ana.
func TestUserCannotContinueAnothersSession(t *testing.T) {
	r := newUserRig(t)
	r.srv.Enqueue(llmtest.Reply{Text: "hi ana"}, llmtest.Reply{Text: "owner here"})
	res, err := r.e.Turn(t.Context(), "", engine.Input{Text: "hello", User: "ana"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.e.Turn(t.Context(), res.SessionID, engine.Input{Text: "show me ana's chat", User: "bob"}, nil)
	_, errNone := r.e.Turn(t.Context(), "20260101_000000_abcdef", engine.Input{Text: "x", User: "bob"}, nil)
	if !errors.Is(err, session.ErrNotFound) || errNone == nil || strings.Replace(err.Error(), res.SessionID, "ID", 1) != strings.Replace(errNone.Error(), "20260101_000000_abcdef", "ID", 1) {
		t.Errorf("bob continuing ana's session: %v; an unknown one: %v; want the same error", err, errNone)
	}
	if n := len(r.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls, want only ana's", n)
	}
	if _, err := r.e.Turn(t.Context(), res.SessionID, engine.Input{Text: "owner checks"}, nil); err != nil {
		t.Fatal(err)
	}
	if system := r.srv.Requests()[1].Messages[0].Text(); !strings.Contains(system, "ANA-NOTE") {
		t.Errorf("the owner's turn in ana's session lost ana's memory:\n%s", system)
	}
}

// TestUserRefused: a user Admit refuses gets a *RefusedError with the
// reason, no session and no model call; an unknown user is an error.
func TestUserRefused(t *testing.T) {
	r := newUserRig(t)
	r.refusing["bob"] = true
	_, err := r.e.Turn(t.Context(), "", engine.Input{Text: "hello", User: "bob"}, nil)
	var refused *engine.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, "budget") {
		t.Fatalf("over budget: %v", err)
	}
	if _, err := r.e.Turn(t.Context(), "", engine.Input{Text: "hello", User: "mallory"}, nil); err == nil {
		t.Error("a turn for an unknown user ran")
	}
	if n := len(r.srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
	if list, _ := r.st.List(t.Context(), session.ListOptions{}); len(list) != 0 {
		t.Errorf("sessions made: %+v", list)
	}
}

// TestUserFactsAreTheirOwn: what a user's session teaches goes to that
// user's long-term facts, recalled in their later sessions and never in
// another user's or the owner's; the shared facts are not recalled for
// a user either.
func TestUserFactsAreTheirOwn(t *testing.T) {
	srv := llmtest.New(t)
	st, db := openStore(t)
	fs := facts.New(db, facts.Options{})
	ctx := context.Background()
	if _, err := fs.Add(ctx, []facts.Fact{{Kind: facts.KindFact, Subject: "vault", Content: "The owner's vault code is 1234."}}); err != nil {
		t.Fatal(err)
	}
	m := namedModels{srv}
	main, _ := m.Model("")
	mem := func() *memory.Store { return memory.Open(t.TempDir(), memory.Limits{}) }
	e := engine.New(engine.Options{
		Store: st, Models: m, Tools: engine.Tools{Registry: tool.NewRegistry()},
		LongTerm: &engine.LongTerm{Store: fs, Model: main},
		Users: map[string]*engine.User{
			"ana": {ID: "ana", Tenant: "acme", Memory: mem()},
			"bob": {ID: "bob", Tenant: "globex", Memory: mem()},
		},
	})
	t.Cleanup(e.Close)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(r.Messages[0].Text(), "worth remembering in later conversations") {
			return llmtest.Reply{Text: `[{"kind": "fact", "subject": "vault", "content": "Ana's vault code is 9876.", "confidence": 0.9}]`}
		}
		return llmtest.Reply{Text: "ok"}
	})
	turn := func(user, text string) string {
		t.Helper()
		n := len(srv.Requests())
		res, err := e.Turn(ctx, "", engine.Input{Text: text, User: user}, nil)
		if err != nil {
			t.Fatal(err)
		}
		first := srv.Requests()[n].LastUserText()
		if err := e.EndSession(ctx, res.SessionID, "exit"); err != nil {
			t.Fatal(err)
		}
		if err := e.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		return first
	}
	if got := turn("ana", "what is the vault code?"); strings.Contains(got, "1234") {
		t.Errorf("ana was given the shared facts: %q", got)
	}
	if got := turn("bob", "what is the vault code?"); strings.Contains(got, "9876") || strings.Contains(got, "1234") {
		t.Errorf("bob was given another's facts: %q", got)
	}
	if mine, _ := fs.For("ana").List(ctx, 0); len(mine) != 1 {
		t.Fatalf("ana's facts after her session: %+v, want the one extracted", mine)
	}
	if got := turn("ana", "what is the vault code?"); !strings.Contains(got, "9876") {
		t.Errorf("ana's own fact was not recalled: %q", got)
	}
	if shared, _ := fs.List(ctx, 0); len(shared) != 1 {
		t.Errorf("the shared facts grew: %+v", shared)
	}
}

// TestUserAllowedTools: a user whose tools are named is offered those
// alone, whatever their toolsets hold.
func TestUserAllowedTools(t *testing.T) {
	r := newUserRig(t)
	r.srv.Enqueue(llmtest.Reply{Text: "ok"})
	if _, err := r.e.Turn(t.Context(), "", engine.Input{Text: "hi", User: "cy"}, nil); err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, tl := range r.srv.Requests()[0].Tools {
		offered = append(offered, tl.Name)
	}
	if !slices.Equal(offered, []string{"search"}) {
		t.Errorf("offered %v, want search alone", offered)
	}
}
