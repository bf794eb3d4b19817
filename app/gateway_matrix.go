package app

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/gwstore"
	"github.com/hermes-go/hermes/gateway/matrix"
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
		Cursor: matrixCursor{store: a.Gateway, name: "since " + m.Homeserver + " " + m.UserID},
		Logger: a.Log,
		Clock:  a.opts.Clock,
	})
	if err != nil {
		return nil, fmt.Errorf("gateway.matrix: %w", err)
	}
	return append(out, p), nil
}

// matrixCursor keeps the Matrix sync position in state.db, under a name
// of the homeserver and account it belongs to: another account's
// position means nothing to the server.
type matrixCursor struct {
	store *gwstore.Store
	name  string
}

func (c matrixCursor) Load(ctx context.Context) (string, error) {
	if c.store == nil {
		return "", nil
	}
	return c.store.Cursor(ctx, "matrix", c.name)
}

func (c matrixCursor) Save(ctx context.Context, since string) error {
	if c.store == nil {
		return nil
	}
	return c.store.SaveCursor(ctx, "matrix", c.name, since)
}
