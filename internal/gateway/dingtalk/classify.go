package dingtalk

import (
	"errors"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The errcodes DingTalk answers a robot's send with, on HTTP 200.
const (
	errTooFast    = 130101 // send too fast, exceed 20 times per minute
	errTooFastAlt = 410100 // also seen for the same
	errBusy       = -1     // the system is busy
)

// rateLimited reports whether DingTalk refused a send as too fast.
func rateLimited(ae *apiError) bool {
	code := strings.ToLower(ae.Code)
	return ae.Errcode == errTooFast || ae.Errcode == errTooFastAlt || ae.Status == 429 ||
		strings.Contains(code, "throttl") || strings.Contains(code, "flowcontrol") || strings.Contains(code, "ratelimit")
}

// classify turns a failed send into a *gateway.SendError. A refusal as
// too fast holds every send of the robot, since the limit is the robot's;
// a refused access token is dropped so the retry fetches a new one.
// DingTalk's Markdown has no syntax that fails, so nothing is BadFormat.
func (a *Adapter) classify(err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	switch {
	case rateLimited(ae):
		wait := a.budget.refused(a.clock.Now())
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: wait, Message: ae.Error(), Err: err}
	case ae.Status == 401 || ae.Status == 403 && strings.Contains(strings.ToLower(ae.Code), "token"):
		a.tokens.drop()
		return &gateway.SendError{Kind: gateway.Temporary, Message: ae.Error(), Err: err}
	case ae.Errcode == errBusy || ae.Status >= 500:
		return &gateway.SendError{Kind: gateway.Temporary, Message: ae.Error(), Err: err}
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: ae.Error(), Err: err}
}
