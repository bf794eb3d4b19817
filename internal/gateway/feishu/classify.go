package feishu

import (
	"errors"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// The codes that ask a sender to slow down: 230020 is the five calls a
// second per user or group, 99991400 the app's own frequency limit.
const (
	codeChatRateLimit = 230020
	codeAppRateLimit  = 99991400
)

// rateLimitWait is how long a chat waits after a rate limit that does not
// say how long (230020 holds for the rest of the second).
const rateLimitWait = time.Second

// classify turns a failed call into a *gateway.SendError. Feishu answers
// most failures with HTTP 200 and a code, so the code decides first: a
// rate limit is never taken for anything else.
func classify(err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		// No answer: a timeout, a reset connection, a refused dial.
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	switch {
	case ae.Code == codeChatRateLimit || ae.Code == codeAppRateLimit || ae.Status == 429:
		wait := ae.RetryAfter
		if wait <= 0 {
			wait = rateLimitWait
		}
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: wait, Message: err.Error(), Err: err}
	case ae.Status >= 500:
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: err.Error(), Err: err}
}
