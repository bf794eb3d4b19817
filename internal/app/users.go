package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/kb"
	"github.com/hermes-go/hermes/internal/memory"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/tool"
)

// engineUsers resolves config's users for the engine: each gets a
// memory of their own under memories/<tenant>/<user>/ (memories/users/
// when no tenants are configured), their tenant's limits narrowed by
// theirs, and, when their knowledge bases are limited, a kb_search
// that searches only those.
func (a *App) engineUsers() map[string]*engine.User {
	dir := a.Users
	if !dir.Enabled() {
		return nil
	}
	mem := homeMemoryLimits(a.Config)
	out := map[string]*engine.User{}
	for _, id := range dir.Users() {
		caller, _ := dir.Get(id)
		l := dir.Limits(caller)
		space := caller.Tenant
		if space == "" {
			space = "users"
		}
		u := &engine.User{ID: id, Tenant: caller.Tenant, Toolsets: l.Toolsets, Model: l.Model, Skills: l.Skills,
			Allow: l.Tools, ApprovalMode: safety.Mode(l.ApprovalMode),
			Memory: memory.Open(homeFile(a.Config, "memories", space, id), mem)}
		switch {
		case l.Knowledge != nil && len(l.Knowledge) == 0:
			// The tenant's and the user's lists have nothing in common:
			// no knowledge base (an unscoped kb_search would be all).
			u.Toolsets = slices.DeleteFunc(slices.Clone(u.Toolsets), func(ts string) bool { return ts == kb.Toolset })
		case l.Knowledge != nil && a.KB != nil:
			u.Tools = append(u.Tools, kb.NewTool(a.KB, l.Knowledge...))
		}
		out[id] = u
	}
	return out
}

// admit refuses a turn for a user past one of their budgets (theirs or
// their tenant's) for the UTC day, saying which, how much was used and
// when it resets.
func (a *App) admit(ctx context.Context, user string) error {
	caller, ok := a.Users.Get(user)
	if !ok {
		return fmt.Errorf("user %q is not configured", user)
	}
	now := a.opts.Clock.Now().UTC()
	today := now.Format(time.DateOnly)
	for _, b := range a.Users.Limits(caller).Budgets {
		rows, err := a.Sessions.DailyUsage(ctx, session.UsageQuery{From: today, To: today, User: b.User, Tenant: b.Tenant})
		if err != nil {
			return err
		}
		var tokens int64
		var cost float64
		for _, r := range rows {
			tokens += r.InputTokens + r.OutputTokens
			cost += r.CostUSD
		}
		reset := now.Truncate(24 * time.Hour).Add(24 * time.Hour).Sub(now).Round(time.Minute)
		whose := "you have"
		if b.Tenant != "" {
			whose = "your team (" + b.Tenant + ") has"
		}
		switch {
		case b.TokensPerDay > 0 && tokens >= b.TokensPerDay:
			return &engine.RefusedError{Reason: fmt.Sprintf("Today's budget is spent: %s used %d of %d tokens (%s.tokens_per_day). It resets at 00:00 UTC, in %s.", whose, tokens, b.TokensPerDay, b.Key, reset)}
		case b.CostPerDay > 0 && cost >= b.CostPerDay:
			return &engine.RefusedError{Reason: fmt.Sprintf("Today's budget is spent: %s used $%.2f of $%.2f (%s.cost_per_day). It resets at 00:00 UTC, in %s.", whose, cost, b.CostPerDay, b.Key, reset)}
		}
	}
	return nil
}

// gatewayUsers makes the gateway serve config's users alone: a message
// runs for the user its sender is, strangers get no pairing code (being
// a user is being added to config.yaml), each person in a group has a
// session of their own (a shared one would be one user's), and an
// approval is answered only by the requester or an admin of their
// tenant, never a viewer.
func (a *App) gatewayUsers(opt *gateway.Options) {
	dir := a.Users
	opt.Identify = func(platform string, u gateway.User) (string, bool) {
		c, ok := dir.ByIdentity(platform, u.ID)
		return c.User, ok
	}
	opt.Authorize = func(_ context.Context, platform string, u gateway.User) (bool, string, error) {
		c, ok := dir.ByIdentity(platform, u.ID)
		if !ok {
			return false, "not one of the users in config.yaml", nil
		}
		return true, "user " + c.User, nil
	}
	opt.MayApprove = func(platform string, approver, requester gateway.User) bool {
		ac, ok := dir.ByIdentity(platform, approver.ID)
		rc, rok := dir.ByIdentity(platform, requester.ID)
		return ok && rok && dir.MayApprove(ac, rc)
	}
	opt.Pair = nil
	opt.GroupSessionsPerUser = true
}

// isUser reports whether id is a user's identity on platform.
func (a *App) isUser(platform, id string) bool {
	_, ok := a.Users.ByIdentity(platform, id)
	return ok
}

// audit records a tool call in the audit log. A failure to write it is
// logged, not the call's: the call has happened either way.
func (a *App) audit(ctx context.Context, c tool.Audited) {
	if err := a.Audit.Record(ctx, c); err != nil {
		a.Log.Warn("audit log not written", "tool", c.Name, "session_id", c.Invocation.SessionID, "error", err)
	}
}

// StartAuditPrune deletes the audit log's entries older than
// audit.keep_days now and then once a day while a long-running front
// runs; Close stops it.
func (a *App) StartAuditPrune(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	keep := time.Duration(a.Config.Config.Audit.KeepDaysOrDefault()) * 24 * time.Hour
	go func() {
		defer close(done)
		for {
			n, err := a.Audit.Prune(ctx, a.opts.Clock.Now().Add(-keep))
			switch {
			case err != nil && ctx.Err() == nil:
				a.Log.Warn("audit log not pruned", "error", err)
			case n > 0:
				a.Log.Info("audit log pruned", "entries", n)
			}
			if a.opts.Clock.Sleep(ctx, 24*time.Hour) != nil {
				return
			}
		}
	}()
	a.onClose(func() {
		cancel()
		<-done
	})
}
