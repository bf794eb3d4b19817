// Package dingtalk is hermes's DingTalk adapter: an app robot that takes
// messages over a Stream connection (a WebSocket hermes opens, so no
// public address is needed) or as HTTP callbacks DingTalk signs, and
// answers through the message's sessionWebhook while it lasts or the
// robot API after, in DingTalk's Markdown.
package dingtalk

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
)

// DefaultBaseURL is the public open API root.
const DefaultBaseURL = "https://api.dingtalk.com"

// DingTalk's limits.
const (
	// MaxText is the longest message, in UTF-8 bytes ("message too
	// long, exceed 20000 bytes").
	MaxText = 20000
	// PerMinute is how many messages one robot may send in a minute;
	// more are refused with errcode 130101.
	PerMinute = 20
)

// Options configure an Adapter.
type Options struct {
	// ClientID and ClientSecret are the app's credentials (AppKey and
	// AppSecret). The secret is never logged nor put in an error.
	ClientID     string
	ClientSecret string
	// RobotCode is the robot the robot API sends as; "" means ClientID.
	RobotCode string
	// BaseURL is the open API root: the public one (the default), a
	// proxy or a test server.
	BaseURL string
	// HTTPPath, when set, takes messages as DingTalk's HTTP callbacks on
	// this path instead of over a Stream connection.
	HTTPPath string
	// Client makes the HTTP requests; nil means a client of its own.
	Client *http.Client
	// Logger gets what the adapter has to say; nil means slog.Default().
	Logger *slog.Logger
	// Clock times backoffs, token expiry, the send budget and the
	// callbacks' timestamps; nil means the wall clock.
	Clock clock.Clock
}

// Adapter is the DingTalk platform. Its methods are safe for concurrent
// use.
type Adapter struct {
	id, secret, robot string
	base              string
	client            *http.Client
	log               *slog.Logger
	clock             clock.Clock
	tokens            tokenCache
	budget            budget
	routes            routes
	// path is http mode's path; "" in stream mode.
	path string

	// inlet holds Receive's deliver in http mode while it runs; before and
	// after, callbacks are refused with 503 so DingTalk retries.
	inlet gateway.Inlet
}

// New checks o and returns an Adapter; it makes no request until Receive
// or a send.
func New(o Options) (*Adapter, error) {
	if o.ClientID == "" || o.ClientSecret == "" {
		return nil, fmt.Errorf("dingtalk: client_id and client_secret are both needed; give the app's Client ID and Client Secret from the DingTalk developer console")
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("dingtalk: base_url %q is not an http or https URL; want the open API root such as %s", base, DefaultBaseURL)
	}
	if o.HTTPPath != "" && !strings.HasPrefix(o.HTTPPath, "/") {
		return nil, fmt.Errorf("dingtalk: path %q does not start with /; give the path DingTalk posts to, such as /dingtalk", o.HTTPPath)
	}
	a := &Adapter{
		id:     o.ClientID,
		secret: o.ClientSecret,
		robot:  o.RobotCode,
		base:   strings.TrimRight(base, "/"),
		client: o.Client,
		log:    o.Logger,
		clock:  clock.OrReal(o.Clock),
		path:   o.HTTPPath,
	}
	if a.robot == "" {
		a.robot = a.id
	}
	if a.client == nil {
		a.client = &http.Client{Timeout: callTimeout}
	}
	if a.log == nil {
		a.log = slog.Default()
	}
	a.log = a.log.With("platform", "dingtalk")
	a.routes.baseHost = u.Host
	return a, nil
}

// Name returns "dingtalk".
func (a *Adapter) Name() string { return "dingtalk" }

// Caps returns DingTalk's limits: 20000 bytes of Markdown, no edits and
// no buttons hermes can be called back on (approvals are answered with
// /approve and /deny), and a robot's 20 messages a minute spread over
// its chats (the adapter keeps that budget across chats too).
func (a *Adapter) Caps() gateway.Caps {
	return gateway.Caps{
		MaxText:   MaxText,
		Measure:   gateway.ByteLen,
		SendEvery: time.Minute / PerMinute,
	}
}

// Edit returns gateway.ErrCannotEdit: a robot's messages stay as sent.
func (a *Adapter) Edit(context.Context, gateway.MessageRef, gateway.Outgoing) error {
	return gateway.ErrCannotEdit
}

// Answer does nothing: DingTalk robots send no buttons that call back.
func (a *Adapter) Answer(context.Context, gateway.Event, string) error { return nil }

// Typing does nothing: DingTalk shows no typing indicator for robots.
func (a *Adapter) Typing(context.Context, gateway.Chat) error { return nil }

// Receive hands every message to deliver until ctx ends: over the Stream
// connection, or in http mode as DingTalk posts them.
func (a *Adapter) Receive(ctx context.Context, deliver func(context.Context, gateway.Event) error) error {
	if a.path != "" {
		return a.receiveHTTP(ctx, deliver)
	}
	return a.receiveStream(ctx, deliver)
}

var _ gateway.Platform = (*Adapter)(nil)
