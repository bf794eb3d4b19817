package app

import (
	"context"
	"net/http"

	"github.com/hermes-go/hermes/internal/gateway"
)

// webhookPlatform is a platform that can take its events as HTTP posts
// (Telegram in webhook mode).
type webhookPlatform interface {
	WebhookHandler() (path string, h http.Handler)
}

// GatewayHTTP is what gateway.webhook.listen answers: the platforms in
// webhook mode, each on its own path, and the webhook routes. It is nil
// when there are none; wait blocks until the routes' turns are over.
func (a *App) GatewayHTTP(ctx context.Context, platforms []gateway.Platform) (h http.Handler, wait func(), err error) {
	hooks, err := a.WebhookHandler(ctx)
	if err != nil {
		return nil, nil, err
	}
	r := pathRouter{exact: map[string]http.Handler{}}
	wait = func() {}
	if hooks != nil {
		r.rest, wait = hooks, hooks.Wait
	}
	for _, p := range platforms {
		if wp, ok := p.(webhookPlatform); ok {
			if path, h := wp.WebhookHandler(); h != nil {
				r.exact[path] = h
			}
		}
	}
	if r.rest == nil && len(r.exact) == 0 {
		return nil, nil, nil
	}
	return r, wait, nil
}

// pathRouter sends a request whose path is exactly one of exact's to its
// handler, and any other to rest. Paths come from configuration, so they
// are compared as they are rather than read as ServeMux patterns.
type pathRouter struct {
	exact map[string]http.Handler
	rest  http.Handler
}

func (p pathRouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := p.exact[r.URL.Path]; ok {
		h.ServeHTTP(w, r)
		return
	}
	if p.rest == nil {
		http.NotFound(w, r)
		return
	}
	p.rest.ServeHTTP(w, r)
}
