package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/api"
	"github.com/hermes-go/hermes/internal/api/apistore"
	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/replica"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/safety/netguard"
	"github.com/hermes-go/hermes/internal/session"
)

// apiSource is the source of the sessions the API server makes; only
// those can be continued through it, so an API key does not open the
// conversations held on chat platforms or at the terminal.
const apiSource = api.SessionSource

// APIKeys are the API server's keys: api.keys and HERMES_API_KEY.
func (a *App) APIKeys() []string {
	var keys []string
	for _, k := range a.Config.Config.API.Keys {
		keys = append(keys, string(k))
	}
	if a.Config.Env != nil {
		if k, ok := a.Config.Env("HERMES_API_KEY"); ok && strings.TrimSpace(k) != "" {
			keys = append(keys, strings.TrimSpace(k))
		}
	}
	return keys
}

// APIHandler assembles the OpenAI-compatible server of the api section.
// Its turns run with nobody to approve a dangerous command, as webhooks
// do: approvals.non_interactive decides, and it denies by default; only
// a run asks its client, over the run's approval endpoint. A listen
// address other machines reach is refused without a key. Close the
// server after serving, so no run outlives the App.
func (a *App) APIHandler() (*api.Server, error) {
	cfg := a.Config.Config.API
	if a.Engine == nil {
		return nil, fmt.Errorf("app: the API server needs the whole runtime (app.Open), not just the stores")
	}
	keys := a.APIKeys()
	if len(keys) == 0 && !a.Users.Enabled() && !netguard.Loopback(cfg.Listen) {
		return nil, fmt.Errorf("api.listen: %q is not accepted without a key; set api.keys or HERMES_API_KEY, or listen on 127.0.0.1", cfg.Listen)
	}
	var models []string
	if m := a.Config.Config.Model.Default; m != "" {
		models = append(models, m)
	}
	var identify func(string) (api.Caller, bool)
	if a.Users.Enabled() {
		identify = func(token string) (api.Caller, bool) {
			c, ok := a.Users.ByKey(token)
			return api.Caller{User: c.User, Tenant: c.Tenant, Admin: c.Role == config.RoleAdmin, Viewer: c.Role == config.RoleViewer}, ok
		}
	}
	return api.New(api.Options{
		Keys:              keys,
		Identify:          identify,
		CORSOrigins:       cfg.CORSOrigins,
		MaxConcurrentRuns: cfg.MaxConcurrentRuns,
		MaxBodyBytes:      cfg.MaxBodyBytes,
		Models:            models,
		Run:               a.apiTurn,
		Conversations:     apiConversations{store: a.Sessions, delete: a.apiDeleteSession},
		Admin:             a.apiAdmin(),
		Metrics:           a.Metrics,
		UI:                a.apiUI(keys),
		Clock:             a.opts.Clock,
		Logger:            a.Log,
		Requests:          apistore.New(a.DB),
		Holder:            a.Holder(),
		Replica:           replica.Tag(a.Holder()),
		Peer:              a.apiPeer,
		Rewind: func(ctx context.Context, id string, after int64) error {
			_, err := a.Sessions.Rewind(ctx, id, after)
			return err
		},
		LastMessageID: func(ctx context.Context, id string) (int64, error) {
			last, err := a.Sessions.LastMessages(ctx, id, 1)
			if err != nil || len(last) == 0 {
				return 0, err
			}
			return last[0].ID, nil
		},
	}), nil
}

// apiTurn runs one API turn in an API session.
func (a *App) apiTurn(ctx context.Context, t api.Turn, sink agent.Sink) (*api.Result, error) {
	if t.SessionID != "" {
		s, err := a.Sessions.Get(ctx, t.SessionID)
		c := api.CallerFrom(ctx)
		if errors.Is(err, session.ErrNotFound) || (err == nil && (s.Source != apiSource || !c.Owner() && s.User != c.User)) {
			return nil, &api.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("%s: %q is not a session of the API; send X-Hermes-Session-Id: new to start one, and the id it returns to continue it", api.SessionHeader, t.SessionID)}
		}
		if err != nil {
			return nil, err
		}
	}
	in := engine.Input{Text: t.Text, Source: apiSource, Model: t.Model, User: api.CallerFrom(ctx).User, Approval: safety.Asker{Prompter: t.Prompter},
		Locked: t.Ready,
		Attach: func(ctx context.Context, to engine.AttachTo) ([]llm.Part, error) {
			if t.Started != nil {
				t.Started(to.SessionID)
			}
			if len(t.Images) > 0 && !to.Images {
				return []llm.Part{llm.TextPart(fmt.Sprintf("[%d image(s) came with this message, but this model does not take images]", len(t.Images)))}, nil
			}
			return t.Images, nil
		}}
	res, err := a.Engine.Turn(ctx, t.SessionID, in, sink)
	var busy *engine.BusyError
	var refused *api.Error
	var spent *engine.RefusedError
	if errors.As(err, &refused) {
		return nil, refused
	}
	if errors.As(err, &spent) {
		return nil, &api.Error{Status: http.StatusTooManyRequests, Message: spent.Reason}
	}
	if errors.As(err, &busy) {
		return nil, &api.Error{Status: http.StatusConflict, Message: fmt.Sprintf("session %s is running a turn already; wait for it to end, then send again", busy.SessionID)}
	}
	if err != nil {
		// The message goes to the client: a secret in it is redacted.
		return nil, errors.New(a.Redactor().Redact(err.Error()))
	}
	if res.Err != nil {
		res.Err = errors.New(a.Redactor().Redact(res.Err.Error()))
	}
	return &api.Result{SessionID: res.SessionID, Result: res.Result}, nil
}
