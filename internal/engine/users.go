package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// User is a user of config.yaml resolved for the engine: what a turn run
// for them uses instead of the defaults. Fronts name the user
// (Input.User) after telling who a message or a request comes from; the
// session records it, so a continued session stays theirs.
type User struct {
	// ID is the user's id; Tenant their tenant's name.
	ID, Tenant string
	// Toolsets, when set, are the most their turns are offered: the
	// selection (hermes's, the input's or an agent's) is cut down to
	// these, never widened.
	Toolsets []string
	// Model, when set, is the model their turns call, whatever the
	// input names (a chat's /model, an API request's model): the tenant
	// pays for it.
	Model string
	// Skills, when set, limits the skills index of their prompts (an
	// agent's own list is narrowed to it).
	Skills []string
	// Memory is the user's own MEMORY.md and USER.md, in place of the
	// shared ones and of a role agent's (which other users share).
	Memory *memory.Store
	// Tools replace hermes's (and an agent's) tools of the same names in
	// their turns: a kb_search limited to their knowledge bases.
	Tools []tool.Tool
	// Allow, when set, are the only tools their turns are offered, by
	// name.
	Allow []string
	// ApprovalMode, when set, replaces approvals.mode for their
	// commands.
	ApprovalMode safety.Mode
}

// RefusedError is a turn refused before it starts for who asked: over
// their budget. Fronts show Reason as it is.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

// errSessionNotFound is what a turn continuing a session that does not
// exist, or is another user's, is told: the same either way, so nobody
// learns another user's session ids by trying them.
func errSessionNotFound(id string) error { return &notFoundError{id: id} }

// notFoundError is a session that does not exist, for this caller.
type notFoundError struct{ id string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("session %q does not exist; `hermes sessions list` shows the sessions there are", e.id)
}

func (e *notFoundError) Unwrap() error { return session.ErrNotFound }

// turnUser settles whose turn in is: the input's user for a new session,
// the parent's for a child session (delegation, a team's task), the
// session's for a continued one. A user continuing a session that is not
// theirs is told it does not exist. It then checks the user may run a
// turn now (Options.Admit), and returns the user, nil for the owner.
func (e *Engine) turnUser(ctx context.Context, known *session.Session, in *Input) (*User, error) {
	switch {
	case known != nil && in.User != "" && known.User != in.User:
		return nil, errSessionNotFound(known.ID)
	case known != nil:
		in.User = known.User
	case in.User == "" && in.parentID != "":
		parent, err := e.opt.Store.Get(ctx, in.parentID)
		if err != nil {
			return nil, fmt.Errorf("the parent session %s: %w", in.parentID, err)
		}
		in.User = parent.User
	}
	if in.User == "" {
		return nil, nil
	}
	u, ok := e.opt.Users[in.User]
	if !ok {
		return nil, fmt.Errorf("user %q is not configured (users: in config.yaml)", in.User)
	}
	if u.Memory == nil {
		// The shared memory would otherwise stand in: every user's.
		return nil, fmt.Errorf("user %s has no memory space of their own", u.ID)
	}
	in.Tenant = u.Tenant
	if e.opt.Admit != nil {
		if err := e.opt.Admit(ctx, u.ID); err != nil {
			var refused *RefusedError
			if !errors.As(err, &refused) {
				err = fmt.Errorf("checking %s's budget: %w", u.ID, err)
			}
			return nil, err
		}
	}
	if u.Model != "" {
		in.Model = u.Model
	}
	if u.ApprovalMode != "" {
		in.Approval.Mode = u.ApprovalMode
	}
	return u, nil
}

// allowOnly returns box with only the tools u may be offered, when u
// names them.
func (e *Engine) allowOnly(box *Toolbox, u *User) (*Toolbox, error) {
	if u == nil || u.Allow == nil {
		return box, nil
	}
	var keep []tool.Tool
	for _, t := range box.selected() {
		if slices.Contains(u.Allow, t.Spec().Name) {
			keep = append(keep, t)
		}
	}
	reg := tool.NewRegistry()
	if err := reg.Swap(nil, keep); err != nil {
		return nil, fmt.Errorf("user %s's tools: %w", u.ID, err)
	}
	return e.toolbox(reg), nil
}

// capToolsets cuts a turn's toolsets (the default selection when none
// are named) down to the user's.
func (e *Engine) capToolsets(u *User, toolsets []string) ([]string, error) {
	if u == nil || u.Toolsets == nil {
		return toolsets, nil
	}
	if len(toolsets) == 0 {
		toolsets = e.opt.Tools.Toolsets
	}
	if len(toolsets) == 0 {
		// No selection is every toolset.
		toolsets = e.opt.Tools.Registry.Toolsets()
	}
	var out []string
	for _, ts := range toolsets {
		if slices.Contains(u.Toolsets, ts) {
			out = append(out, ts)
		}
	}
	if len(out) == 0 {
		allowed := strings.Join(u.Toolsets, ", ")
		if allowed == "" {
			allowed = "none"
		}
		return nil, &RefusedError{Reason: fmt.Sprintf("none of the toolsets this turn would use (%s) is allowed for user %s; the allowed ones are %s",
			strings.Join(toolsets, ", "), u.ID, allowed)}
	}
	return out, nil
}

// persona is what a turn of user u as agent a is made of: a's identity
// and tools, with u's memory and tools in place. Nil when neither is
// set. Its name keys the cached toolbox, so two users of one agent never
// share one.
func persona(a *Agent, u *User) *Agent {
	if u == nil {
		return a
	}
	p := &Agent{Name: "user " + u.ID, origin: "the toolsets user " + u.ID + " may use (users: and tenants: in config.yaml)"}
	var tools []tool.Tool
	if a != nil {
		*p = *a
		p.Name = a.Name + " for user " + u.ID
		for _, t := range a.Tools {
			if !slices.ContainsFunc(u.Tools, func(o tool.Tool) bool { return o.Spec().Name == t.Spec().Name }) {
				tools = append(tools, t)
			}
		}
	}
	p.Tools = append(tools, u.Tools...)
	p.Memory = u.Memory
	if u.Skills != nil {
		p.Skills = u.Skills
		if a != nil && a.Skills != nil {
			p.Skills = nil
			for _, s := range a.Skills {
				if slices.Contains(u.Skills, s) {
					p.Skills = append(p.Skills, s)
				}
			}
		}
		if len(p.Skills) == 0 {
			// No skill in common is none; an empty list would be all.
			p.Skills = []string{""}
		}
	}
	return p
}
