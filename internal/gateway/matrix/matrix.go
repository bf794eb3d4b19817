// Package matrix is hermes's Matrix adapter: a small client of the
// Client-Server API (login, /sync, join, send, edit, typing) that turns
// messages in unencrypted rooms into gateway Events and sends replies as
// m.text events, edited in place with m.replace while they stream.
//
// It is hand-rolled over net/http rather than built on mautrix because
// hermes needs a dozen endpoints of a JSON API, mautrix would bring its
// own dependencies (and a cgo crypto stack hermes cannot use), and the
// adapter's tests speak the same JSON to a real dendrite and a fake.
package matrix

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// Cursor keeps where the sync stream was read up to, across restarts, as
// an opaque string the adapter writes. Load returns "" when nothing was
// saved.
type Cursor interface {
	Load(ctx context.Context) (string, error)
	Save(ctx context.Context, position string) error
}

// Options configure an Adapter.
type Options struct {
	// Homeserver is the Client-Server API root, such as
	// https://matrix.example.org.
	Homeserver string
	// UserID is the bot's Matrix id (@hermes:example.org). With an
	// access token it is checked against the token's owner; with a
	// password it is who logs in.
	UserID string
	// AccessToken is the bot's token; when empty, Password logs in.
	AccessToken string
	Password    string
	// DeviceID is the device a password login reuses, so each restart
	// does not add a device; empty lets the server pick one.
	DeviceID string
	// MayInvite reports whether an invite from a user is accepted; nil
	// accepts none. Invites from others are left pending.
	MayInvite func(ctx context.Context, userID string) bool
	// Cursor keeps the sync position; nil keeps it in memory only, so a
	// restart starts from now.
	Cursor Cursor
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
	// PollTimeout is how long one /sync waits for events; 0 means 30 s.
	PollTimeout time.Duration
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times backoffs and stamps events; nil means the wall clock.
	Clock clock.Clock
}

// Adapter is the Matrix platform. Its methods are safe for concurrent
// use.
type Adapter struct {
	base     string
	client   *http.Client
	poll     time.Duration
	log      *slog.Logger
	clock    clock.Clock
	password string
	device   string
	invite   func(context.Context, string) bool
	cursor   Cursor
	// txnPrefix makes this process's transaction ids its own: the server
	// remembers ids per token across restarts.
	txnPrefix string

	mu      sync.Mutex
	token   string
	userID  string
	name    string
	txnN    uint64
	pending map[string]string // failed sends' transaction ids, by content
	members map[string]int    // joined members by room, to tell DMs
	ours    map[string]bool   // event ids hermes sent, for replies to it
	noticed map[string]bool   // encrypted rooms told hermes cannot read them
	pos     position          // the sync position when Cursor is nil
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	u, err := url.Parse(o.Homeserver)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("matrix: homeserver %q is not an http or https URL; want the Client-Server API root such as https://matrix.example.org", o.Homeserver)
	}
	if o.AccessToken == "" && o.Password == "" {
		return nil, fmt.Errorf("matrix: neither access_token nor password is set; give the bot's access token, or its password to log in with")
	}
	if o.AccessToken == "" && !isUserID(o.UserID) {
		return nil, fmt.Errorf("matrix: user_id %q is not a Matrix user id; a password login needs one like @hermes:example.org", o.UserID)
	}
	if o.UserID != "" && !isUserID(o.UserID) {
		return nil, fmt.Errorf("matrix: user_id %q is not a Matrix user id; want @localpart:server, like @hermes:example.org", o.UserID)
	}
	prefix := make([]byte, 6)
	if _, err := rand.Read(prefix); err != nil {
		return nil, fmt.Errorf("matrix: transaction ids: %w", err)
	}
	a := &Adapter{
		base:      strings.TrimRight(o.Homeserver, "/"),
		client:    o.Client,
		poll:      o.PollTimeout,
		log:       o.Logger,
		clock:     clock.OrReal(o.Clock),
		password:  o.Password,
		device:    o.DeviceID,
		invite:    o.MayInvite,
		cursor:    o.Cursor,
		txnPrefix: "hermes" + hex.EncodeToString(prefix),
		token:     o.AccessToken,
		userID:    o.UserID,
		pending:   map[string]string{},
		members:   map[string]int{},
		ours:      map[string]bool{},
		noticed:   map[string]bool{},
	}
	if a.client == nil {
		a.client = &http.Client{}
	}
	if a.poll <= 0 {
		a.poll = 30 * time.Second
	}
	if t := a.client.Timeout; t > 0 && t <= a.poll {
		return nil, fmt.Errorf("matrix: the HTTP client's timeout %s is not longer than the sync timeout %s, so every long poll would fail; give a longer client timeout or none", t, a.poll)
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "matrix")
	return a, nil
}

// isUserID reports whether s looks like @localpart:server.
func isUserID(s string) bool {
	at := strings.IndexByte(s, ':')
	return strings.HasPrefix(s, "@") && at > 1 && at < len(s)-1 && !strings.ContainsAny(s, " \t\n/")
}

// Name returns "matrix".
func (a *Adapter) Name() string { return "matrix" }

// The limits of a Matrix event.
const (
	// MaxEvent is the largest event a homeserver accepts, in bytes of
	// its JSON.
	MaxEvent = 65536
	// MaxText is the longest text one message carries, in bytes of JSON
	// string (Measure). An edit carries its text twice ("* text" and
	// m.new_content), and the server adds the event's envelope (ids,
	// hashes, signatures), so half the event less room for those.
	MaxText = 30000
	// SendEvery paces sends and edits to a room. Homeservers limit
	// messages per user (Synapse: a burst of 10, then one per 5 s), and
	// streaming by edits spends that quickly.
	SendEvery = 2 * time.Second
)

// Caps returns Matrix's limits: text measured in JSON bytes, edits, no
// buttons (approvals are answered with /approve and /deny).
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{MaxText: MaxText, Measure: Measure, CanEdit: true, SendEvery: SendEvery}
}

// Measure is the bytes text takes as a JSON string in an event as hermes
// sends it: UTF-8, with quotes, backslashes and control characters
// escaped, and U+2028, U+2029 and an invalid byte as the six bytes of
// the \u escape encoding/json always writes for them.
// That is never less than the server counts against MaxEvent.
func Measure(text string) int {
	n := 0
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// who returns the bot's user id and display name.
func (a *Adapter) who() (string, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.userID, a.name
}

var _ gateway.Platform = (*Adapter)(nil)
