package app

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/gwstore"
	"github.com/hermes-go/hermes/internal/gateway/matrix"
)

// addMatrix appends the Matrix adapter to out when gateway.matrix is on.
// It accepts invites from the users who may talk to hermes there, and
// keeps its sync position in state.db.
func (a *App) addMatrix(out []gateway.Platform) ([]gateway.Platform, error) {
	g := a.Config.Config.Gateway
	m := g.Matrix
	if !m.On() {
		return out, nil
	}
	auth := gateway.Authorizer{
		AllowAll:    map[string]bool{"matrix": m.AllowAll},
		Allow:       map[string][]string{"matrix": m.Allow},
		GlobalAllow: g.Allow,
		Pairings:    a.Gateway,
	}
	p, err := matrix.New(matrix.Options{
		Homeserver:  m.Homeserver,
		UserID:      m.UserID,
		AccessToken: string(m.AccessToken),
		Password:    string(m.Password),
		DeviceID:    m.DeviceID,
		MayInvite: func(ctx context.Context, user string) bool {
			ok, _, err := auth.Allowed(ctx, "matrix", user)
			return err == nil && ok || a.isUser("matrix", user)
		},
		Cursor: gatewayCursor{store: a.Gateway, platform: "matrix", name: "since " + m.Homeserver + " " + m.UserID},
		Logger: a.Log,
		Clock:  a.opts.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway.matrix: %w", err)
	}
	return append(out, p), nil
}

// gatewayCursor keeps a platform's position in its stream of events (the
// Matrix sync position, the Discord Gateway session) in the database,
// under a name of the account it belongs to: another account's position
// means nothing to the server.
type gatewayCursor struct {
	store          *gwstore.Store
	platform, name string
}

func (c gatewayCursor) Load(ctx context.Context) (string, error) {
	if c.store == nil {
		return "", nil
	}
	return c.store.Cursor(ctx, c.platform, c.name)
}

func (c gatewayCursor) Save(ctx context.Context, v string) error {
	if c.store == nil {
		return nil
	}
	return c.store.SaveCursor(ctx, c.platform, c.name, v)
}
