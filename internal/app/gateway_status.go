package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/pgdb"
)

// PlatformStatus is one configured platform or webhook route, for
// hermes gateway status.
type PlatformStatus struct {
	Platform string `json:"platform"`
	OK       bool   `json:"ok"`
	// Detail is who hermes is there and how events reach it, or why it
	// cannot connect.
	Detail string `json:"detail"`
	// Leader is the replica that receives from the platform, where it
	// allows one consumer and replicas share a PostgreSQL database.
	Leader string `json:"leader,omitempty"`
}

// statusTimeout bounds each platform's check.
const statusTimeout = 15 * time.Second

// GatewayStatus checks every configured platform at once, as hermes
// serve would connect to it, and lists the webhook routes.
func (a *App) GatewayStatus(ctx context.Context) ([]PlatformStatus, error) {
	platforms, err := a.GatewayPlatforms()
	if err != nil {
		return nil, err
	}
	out := make([]PlatformStatus, len(platforms))
	var wg sync.WaitGroup
	for i, p := range platforms {
		out[i].Platform = p.Name()
		c, ok := p.(gateway.Checker)
		if !ok {
			out[i].OK, out[i].Detail = true, "configured (this platform has no check)"
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, statusTimeout)
			defer cancel()
			who, err := c.Check(ctx)
			out[i].OK, out[i].Detail = err == nil, who
			if err != nil {
				out[i].Detail = joinDetail(who, err.Error())
			}
		})
	}
	wg.Wait()
	if e := a.elector(); e != nil {
		markLeaders(ctx, e, platforms, out)
	}
	hooks := a.Config.Config.Gateway.Webhook
	for _, name := range slices.Sorted(maps.Keys(hooks.Routes)) {
		rt := hooks.Routes[name]
		out = append(out, PlatformStatus{Platform: "webhook " + name, OK: true,
			Detail: fmt.Sprintf("POST http://%s%s, checked by %s", hooks.Listen, rt.Path, rt.Auth)})
	}
	return out, nil
}

func joinDetail(who, why string) string {
	if who == "" {
		return why
	}
	return who + ": " + why
}

// leaderOf says which replica leads a name; pgdb.Elector does.
type leaderOf interface {
	Leader(ctx context.Context, name string) (holder string, ok bool, err error)
}

// markLeaders says, in out, which replica receives from each platform
// that allows one consumer.
func markLeaders(ctx context.Context, e leaderOf, platforms []gateway.Platform, out []PlatformStatus) {
	for i, p := range platforms {
		if !p.Caps().OneConsumer {
			continue
		}
		holder, ok, err := e.Leader(ctx, p.Name())
		switch {
		case err != nil:
			out[i].Detail += "; which replica receives is unknown: " + err.Error()
		case !ok:
			out[i].Detail += "; no replica receives from it now (each running one tries every " + pgdb.DefaultLeadInterval.String() + ")"
		default:
			out[i].Leader = holder
			out[i].Detail += "; received by replica " + holder
		}
	}
}
