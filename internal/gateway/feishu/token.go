package feishu

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// tokenCache keeps the tenant_access_token, which lasts two hours: it is
// renewed when less than refreshBefore is left (Feishu hands out a new
// one then), or at once when a call says it is no good.
type tokenCache struct {
	mu      sync.Mutex
	value   string
	expires time.Time
}

// refreshBefore is how long before its expiry a token is replaced.
const refreshBefore = 30 * time.Minute

// get returns a token that is good for a while, asking for a new one
// when needed. Callers wait for one request rather than each making one.
func (c *tokenCache) get(ctx context.Context, a *Adapter) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := a.clock.Now()
	if c.value != "" && now.Before(c.expires) {
		return c.value, nil
	}
	var got struct {
		Token  string `json:"tenant_access_token"`
		Expire int    `json:"expire"`
	}
	body := map[string]string{"app_id": a.appID, "app_secret": a.appSecret}
	if err := a.do(ctx, http.MethodPost, "/open-apis/auth/v3/tenant_access_token/internal", "", body, &got); err != nil {
		return "", fmt.Errorf("feishu: getting the tenant_access_token (check app_id and app_secret): %w", err)
	}
	if got.Token == "" || got.Expire <= 0 {
		return "", fmt.Errorf("feishu: the tenant_access_token answer has no token or expiry")
	}
	life := time.Duration(got.Expire) * time.Second
	// Renew refreshBefore ahead, or half-way through a short life.
	c.value, c.expires = got.Token, now.Add(max(life-refreshBefore, life/2))
	return c.value, nil
}

// drop forgets tok, when it is still the cached one, so the next call
// gets a new token.
func (c *tokenCache) drop(tok string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.value == tok {
		c.value = ""
	}
}
