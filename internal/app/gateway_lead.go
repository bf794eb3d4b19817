package app

import (
	"context"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/pgdb"
)

// gatewayElector elects, among the replicas sharing the database, the
// one that receives from each platform allowing one consumer (Telegram
// polling, Discord, Slack Socket Mode, email): PostgreSQL's advisory
// locks when the state is there. On SQLite it is nil: the database is
// one machine's, so is the gateway, and every platform is received from
// here.
func (a *App) gatewayElector() gateway.Elector {
	if e := a.elector(); e != nil {
		return leaderElector{e}
	}
	return nil
}

// elector is the database's Elector, nil when the database cannot elect.
func (a *App) elector() *pgdb.Elector {
	var db any = a.DB
	pg, ok := db.(*pgdb.DB)
	if !ok || pg == nil {
		return nil
	}
	// The wall clock, whatever the app's: the server ends a leader's
	// session after three intervals of its wall clock without a check.
	// The holder is the name the roll of replicas knows this one by.
	return pg.Elector(pgdb.ElectOptions{Holder: a.Holder()})
}

// leaderElector is a pgdb.Elector as the gateway takes one.
type leaderElector struct{ e *pgdb.Elector }

func (l leaderElector) Lead(ctx context.Context, name string) (gateway.Lease, error) {
	lead, err := l.e.Lead(ctx, name)
	if err != nil {
		return nil, err
	}
	return lead, nil
}

var _ gateway.Elector = leaderElector{}
