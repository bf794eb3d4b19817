package telegram

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// classify turns a failed send or edit into a *gateway.SendError, or nil
// for an edit that changed nothing. It goes by parameters (retry_after,
// migrate_to_chat_id) and the status; the description is read only for
// the two cases nothing else shows: a parse failure and "not modified".
func (a *Adapter) classify(err error, chatID int64) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		// No answer: a timeout, a reset connection, a refused dial.
		return &gateway.SendError{Kind: gateway.Temporary, Message: err.Error(), Err: err}
	}
	desc := strings.ToLower(ae.Description)
	switch {
	case ae.RetryAfter > 0 || ae.Code == 429:
		return &gateway.SendError{Kind: gateway.RateLimited, RetryAfter: time.Duration(ae.RetryAfter) * time.Second, Message: ae.Description, Err: err}
	case ae.MigrateTo != 0:
		a.log.Warn("telegram: the group became a supergroup with a new chat id; messages to the old id fail", "chat_id", chatID, "new_chat_id", ae.MigrateTo)
		return &gateway.SendError{Kind: gateway.Permanent,
			Message: fmt.Sprintf("the group %d became the supergroup %d; send to the new chat id", chatID, ae.MigrateTo), Err: err}
	case ae.Code == 400 && strings.Contains(desc, "message is not modified"):
		return nil
	case ae.Code == 400 && strings.Contains(desc, "can't parse entities"):
		return &gateway.SendError{Kind: gateway.BadFormat, Message: ae.Description, Err: err}
	case ae.Code >= 500:
		return &gateway.SendError{Kind: gateway.Temporary, Message: ae.Description, Err: err}
	}
	return &gateway.SendError{Kind: gateway.Permanent, Message: ae.Description, Err: err}
}
