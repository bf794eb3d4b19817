package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// Conversations reads and deletes the stored sessions of the API, the
// only ones the Responses endpoints reach.
type Conversations interface {
	// Conversation returns the stored session id with its messages, or an
	// *Error with status 404 when id names no session the API made (one
	// held at the terminal or on a chat platform included).
	Conversation(ctx context.Context, id string) (*Conversation, error)
	// Delete removes the session id and its messages in one transaction,
	// or returns an *Error with status 404 as Conversation does.
	Delete(ctx context.Context, id string) error
}

// Conversation is a stored session of the API.
type Conversation struct {
	ID string
	// Model is the model the session started with.
	Model    string
	Messages []StoredMessage
	// ContinuedIn is the session the conversation went on in after it
	// was compressed, empty while it goes on here; none of this
	// session's responses is then the conversation's latest.
	ContinuedIn string
}

// StoredMessage is one stored message of a Conversation.
type StoredMessage struct {
	// ID is the store's id of the message, increasing within a session.
	ID int64
	llm.Message
	FinishReason string
	CreatedAt    time.Time
}

// responseRef is what a response id names: the turn of session that
// began after message after, the answer of the first turn when after is
// 0. latest marks the older id of the form resp_<session>, which names
// the latest response of its session.
//
// Naming a turn by the answer it follows, not by its own answer, gives a
// streamed response its id before the answer is stored: the id goes out
// in response.created, and the same id finds the answer later.
type responseRef struct {
	session string
	after   int64
	latest  bool
}

// turnMark separates the session from the message the turn follows.
const turnMark = "_r"

func (r responseRef) String() string {
	if r.latest {
		return responsePrefix + r.session
	}
	return responsePrefix + r.session + turnMark + strconv.FormatInt(r.after, 10)
}

// parseResponseID reads id, resp_<session>_r<n> or resp_<session>; field
// names the request's field in the error.
func parseResponseID(id, field string) (responseRef, *badRequest) {
	rest, ok := strings.CutPrefix(id, responsePrefix)
	if !ok || rest == "" {
		return responseRef{}, &badRequest{http.StatusBadRequest, field, fmt.Sprintf("%s: %q is not accepted; give the id of a response hermes returned (resp_...)", field, id)}
	}
	if i := strings.LastIndex(rest, turnMark); i > 0 {
		if n, err := strconv.ParseInt(rest[i+len(turnMark):], 10, 64); err == nil && n >= 0 {
			return responseRef{session: rest[:i], after: n}, nil
		}
	}
	return responseRef{session: rest, latest: true}, nil
}

// answered is an answer of a conversation: the final assistant message
// of a turn, one without tool calls.
func answered(m StoredMessage) bool {
	return m.Role == llm.RoleAssistant && len(m.ToolCalls) == 0
}

// answers returns the indexes of the conversation's answers, in order.
func (c *Conversation) answers() []int {
	var out []int
	for i, m := range c.Messages {
		if answered(m) {
			out = append(out, i)
		}
	}
	return out
}

// found is a response found in a conversation.
type found struct {
	ref    responseRef
	answer StoredMessage
	// said are the messages of the turn in which the model wrote text,
	// in order: what the response's output shows.
	said []StoredMessage
	// prev names the response before, when there is one.
	prev *responseRef
	// last is set when no response follows this one.
	last bool
}

// find returns the response ref names, or an *Error with status 404
// that says what the client can do.
func (c *Conversation) find(ref responseRef) (*found, error) {
	ans := c.answers()
	pos := -1 // the position in ans of the response's answer
	switch {
	case ref.latest:
		pos = len(ans) - 1
	case ref.after == 0:
		if len(ans) > 0 {
			pos = 0
		}
	default:
		for i, a := range ans {
			if c.Messages[a].ID == ref.after && i+1 < len(ans) {
				pos = i + 1
			}
		}
	}
	if pos < 0 {
		return nil, &Error{Status: http.StatusNotFound, Message: fmt.Sprintf("response %s is not stored: hermes has no answer of that turn; use the id a response of this conversation returned", ref)}
	}
	f := &found{ref: responseRef{session: c.ID}, answer: c.Messages[ans[pos]], last: pos == len(ans)-1 && c.ContinuedIn == ""}
	from := 0
	if pos > 0 {
		from = ans[pos-1] + 1
	}
	for i := from; i <= ans[pos]; i++ {
		if m := c.Messages[i]; m.Role == llm.RoleUser && (i == 0 || c.Messages[i-1].Role != llm.RoleTool) {
			// The turn's own message; what came before it was carried
			// into this session when it was compressed.
			f.said = f.said[:0]
		} else if m.Role == llm.RoleAssistant && m.Text() != "" {
			f.said = append(f.said, m)
		}
	}
	if pos > 0 {
		f.ref.after = c.Messages[ans[pos-1]].ID
		p := responseRef{session: c.ID}
		if pos > 1 {
			p.after = c.Messages[ans[pos-2]].ID
		}
		f.prev = &p
	}
	return f, nil
}

// next is the ref of the response a turn starting now in c gets: the
// turn after the conversation's last answer.
func (c *Conversation) next() responseRef {
	r := responseRef{session: c.ID}
	if ans := c.answers(); len(ans) > 0 {
		r.after = c.Messages[ans[len(ans)-1]].ID
	}
	return r
}

// latestRef is the ref of the conversation's latest response.
func (c *Conversation) latestRef() responseRef {
	if f, err := c.find(responseRef{session: c.ID, latest: true}); err == nil {
		return f.ref
	}
	return c.next()
}
