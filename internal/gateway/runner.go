package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/logctx"
	"github.com/hermes-go/hermes/internal/safety"
	"github.com/hermes-go/hermes/internal/slash"
)

// Turner runs a turn; engine.Engine is one.
type Turner interface {
	Turn(ctx context.Context, sessionID string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error)
}

// Options assemble a Runner. The hooks are what the gateway keeps in
// state.db (gateway/gwstore) and how it sends (the outbox); app wires
// them.
type Options struct {
	Engine    Turner
	Platforms []Platform
	// Seen records an inbound event's id and reports whether it is the
	// first time; a redelivered event is dropped.
	Seen func(ctx context.Context, platform, eventID string) (first bool, err error)
	// Received, when set, is told of each inbound message taken (a
	// redelivery is not), for the metrics.
	Received func(platform string)
	// Authorize says whether user may talk to hermes on platform, and
	// why (for /whoami and the logs).
	Authorize func(ctx context.Context, platform string, user User) (ok bool, why string, err error)
	// Pair issues a pairing code to an unknown user in a direct message;
	// nil ignores unknown users (unauthorized_dm_behavior: ignore).
	Pair func(ctx context.Context, platform string, user User) (code string, err error)
	// Resolve finds the session of a chat's key ("" for a new one; reset
	// when the reset policy started it afresh); Bind records a new one;
	// Forget drops the binding (/new).
	Resolve func(ctx context.Context, key string) (sessionID string, reset bool, err error)
	Bind    func(ctx context.Context, key, sessionID string) error
	Forget  func(ctx context.Context, key string) error
	// BindNew binds a new chat's key to the session its first turn made,
	// unless another process bound one first, and returns the session
	// bound: a new chat's first messages reaching two replicas at once
	// then share one session. nil leaves the binding to Bind, after the
	// turn.
	BindNew func(ctx context.Context, key, sessionID string) (string, error)
	// Send and Edit deliver through the outbox; nil sends directly.
	Send func(ctx context.Context, sessionID string, p Platform, chat Chat, m Outgoing) (MessageRef, error)
	Edit func(ctx context.Context, sessionID string, p Platform, ref MessageRef, m Outgoing) error
	// Approvers lists, per platform, the user ids who may answer approval
	// requests; a platform with none lets anyone who may talk to hermes.
	Approvers func(platform string) []string
	// Identify, when set (users: in config.yaml), tells which user a
	// platform identity is; turns run for that user. Authorize then
	// admits only identified users.
	Identify func(platform string, u User) (user string, ok bool)
	// MayApprove, when set with Identify, decides who may answer an
	// approval request of a turn run for requester, in place of
	// Approvers: no one who is not a user, nor a user of another tenant.
	MayApprove func(platform string, approver, requester User) bool
	// GroupSessionsPerUser gives each person in a group a session.
	GroupSessionsPerUser bool
	// RequireMention answers groups only when addressed.
	RequireMention bool
	// Interrupt makes a message to a busy chat stop its running turn.
	Interrupt bool
	// Workdir is where the gateway's sessions work.
	Workdir string
	// Media is where files sent in chats go and which files replies
	// may attach.
	Media MediaOptions
	// Commands are the slash commands, hermes's own and the skills;
	// Skill turns a skill's command into the message that runs it.
	Commands *slash.Registry
	Skill    func(name, instruction string) (string, error)
	// Usage answers /usage for the chat whose session key is key.
	Usage func(ctx context.Context, key string) string
	// Compress answers /compress [focus] for the chat whose session key
	// is key: it compresses the session now and returns what to tell the
	// chat; the chat goes on in the session it names.
	Compress func(ctx context.Context, key, focus string) string
	// Tidy compresses a session before a turn when it fills more than
	// HygieneShare of the context window; it returns the session the
	// conversation continues in ("" when nothing was done) and a note
	// for the chat.
	Tidy func(ctx context.Context, sessionID string) (continued, note string, err error)
	// Model answers /model [name] for the chat whose session key is key:
	// with a name it switches the chat to that model ("default" goes back
	// to the configured one); without, it says which model the chat
	// uses. ChatModel is the model a chat's turns call, "" for the
	// configured one.
	Model     func(ctx context.Context, key, name string) string
	ChatModel func(ctx context.Context, key string) string
	// Agent answers /agent [name] for chat key like Model does for
	// models: with a name it binds the chat to that role agent and
	// starts a new session ("default" unbinds it). ChatAgent is the
	// agent a chat's new sessions run as, "" for none.
	Agent     func(ctx context.Context, key, name string) string
	ChatAgent func(ctx context.Context, key string) string
	// Inbox keeps messages until their turns are over, so a restart
	// does not lose them; nil keeps them in memory only.
	Inbox Inbox
	// AdoptEvery, when set, is how often the runner takes over, besides
	// at start, the messages other processes held and left when they
	// died: replicas sharing a database pick up a dead one's messages
	// without a restart of their own.
	AdoptEvery time.Duration
	// Elector, when set, elects the one replica that receives from each
	// platform whose Caps say OneConsumer; nil receives from every
	// platform here (one machine).
	Elector Elector
	Logger  *slog.Logger
}

// Runner is the gateway inside hermes serve: it takes every platform's
// events and answers them.
type Runner struct {
	opt       Options
	log       *slog.Logger
	approvals *approvals
	chats     *chats
	// base is Run's context: its end is hermes stopping.
	base context.Context
}

// New returns a Runner.
func New(opt Options) *Runner {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Send == nil {
		opt.Send = func(ctx context.Context, _ string, p Platform, chat Chat, m Outgoing) (MessageRef, error) {
			return p.Send(ctx, chat, m)
		}
	}
	if opt.Edit == nil {
		opt.Edit = func(ctx context.Context, _ string, p Platform, ref MessageRef, m Outgoing) error {
			return p.Edit(ctx, ref, m)
		}
	}
	return &Runner{opt: opt, log: opt.Logger, approvals: newApprovals()}
}

// Run receives from every platform until ctx ends, then waits for the
// turns in progress to stop.
func (r *Runner) Run(ctx context.Context) error {
	r.base = ctx
	r.chats = newChats(ctx, r.opt.Interrupt)
	r.resume(ctx)
	var wg sync.WaitGroup
	if r.opt.AdoptEvery > 0 && r.opt.Inbox != nil {
		wg.Go(func() { r.adoptEvery(ctx, r.opt.AdoptEvery) })
	}
	errs := make([]error, len(r.opt.Platforms))
	for i, p := range r.opt.Platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := r.receive(ctx, p)
			if err != nil && ctx.Err() == nil {
				r.log.Error("gateway: platform stopped", slog.String("platform", p.Name()), slog.String("error", err.Error()))
				errs[i] = fmt.Errorf("%s: %w", p.Name(), err)
			}
		}()
	}
	wg.Wait()
	r.chats.wait()
	return errors.Join(errs...)
}

// deliver takes one inbound event: once, quickly. The work it starts
// goes on after it returns.
func (r *Runner) deliver(ctx context.Context, p Platform, ev Event) error {
	if tk, ok := r.opt.Inbox.(Taker); ok && ev.ID != "" && ev.Kind == KindMessage {
		return r.take(ctx, p, tk, ev)
	}
	if r.opt.Seen != nil && ev.ID != "" {
		first, err := r.opt.Seen(ctx, p.Name(), ev.ID)
		if err != nil {
			return err // not taken: the platform offers it again
		}
		if !first {
			r.log.Debug("gateway: redelivered event dropped", slog.String("platform", p.Name()), slog.String("event", ev.ID))
			return nil
		}
	}
	if ev.Kind == KindMessage && r.opt.Received != nil {
		r.opt.Received(p.Name())
	}
	switch ev.Kind {
	case KindButton:
		r.press(ctx, p, ev)
	case KindMessage:
		r.message(ctx, p, ev)
	}
	return nil
}

// press answers a button press.
func (r *Runner) press(ctx context.Context, p Platform, ev Event) {
	text := "Done."
	if _, err := r.approvals.press(ev); err != nil {
		text = err.Error()
	}
	if err := p.Answer(ctx, ev, text); err != nil {
		r.log.Warn("gateway: answering a button press failed", slog.String("platform", p.Name()), slog.String("error", err.Error()))
	}
}

// message handles a message: who sent it, whether it is for hermes, a
// command, or a turn.
func (r *Runner) message(ctx context.Context, p Platform, ev Event) {
	if ev.Chat.Type == Group && r.opt.RequireMention && !ev.Addressed {
		return
	}
	ok, why, err := r.authorize(ctx, p, ev.User)
	if err != nil {
		r.log.Error("gateway: authorization failed", slog.String("platform", p.Name()), slog.String("error", err.Error()))
		return
	}
	if !ok {
		r.unknown(ctx, p, ev, why)
		return
	}
	key := SessionKey(p.Name(), ev.Chat, ev.User, r.opt.GroupSessionsPerUser)
	if r.command(ctx, p, ev, key) {
		return
	}
	r.queueTurn(ctx, p, ev, key, ev.Text)
}

func (r *Runner) authorize(ctx context.Context, p Platform, u User) (bool, string, error) {
	if r.opt.Identify != nil {
		// With users configured, someone who is none of them is a
		// stranger, whatever an allowlist says: their turn would run as
		// nobody's, with the owner's memory and sessions.
		if _, ok := r.opt.Identify(p.Name(), u); !ok {
			return false, "not one of the users in config.yaml", nil
		}
	}
	if r.opt.Authorize == nil {
		return false, "no one is allowed: the gateway has no authorization configured", nil
	}
	return r.opt.Authorize(ctx, p.Name(), u)
}

// unknown answers someone not allowed: a pairing code in a direct
// message, when pairing is on; nothing otherwise, and nothing in groups.
func (r *Runner) unknown(ctx context.Context, p Platform, ev Event, why string) {
	r.log.Info("gateway: message from someone not allowed", slog.String("platform", p.Name()), slog.String("user", ev.User.ID), slog.String("why", why))
	if ev.Chat.Type != DM || r.opt.Pair == nil {
		return
	}
	code, err := r.opt.Pair(ctx, p.Name(), ev.User)
	text := fmt.Sprintf("Hi! I don't know you yet. To talk to me, ask my owner to run:\n\n`hermes pairing approve %s %s`\n\nThe code is valid for an hour.", p.Name(), code)
	if err != nil {
		text = "I don't know you yet, and I can't give you a pairing code right now: " + err.Error()
	}
	if _, err := r.opt.Send(ctx, "", p, ev.Chat, Outgoing{Text: text, ReplyTo: ev.MessageID}); err != nil {
		r.log.Warn("gateway: the pairing reply was not sent", slog.String("platform", p.Name()), slog.String("error", err.Error()))
	}
}

// turn runs one turn of chat key for text and streams its reply.
func (r *Runner) turn(ctx context.Context, p Platform, ev Event, key, text string) {
	ctx = logctx.With(ctx, slog.String("platform", p.Name()))
	sessionID, reset, err := r.resolve(ctx, key)
	if err != nil {
		r.reply(ctx, p, ev, "", "I could not open this chat's session: "+err.Error())
		return
	}
	if reset {
		r.reply(ctx, p, ev, "", "(A new session started: this chat's earlier one reached its reset time.)")
	}
	sessionID = r.tidy(ctx, p, ev, key, sessionID)
	caps := p.Caps()
	stream := &replyStream{ctx: context.WithoutCancel(ctx), canEdit: caps.CanEdit, finalOnly: caps.FinalOnly,
		split: func(s string) []string { return Split(s, caps.MaxText, caps.Measure) },
		send: func(ctx context.Context, m Outgoing) (MessageRef, error) {
			return r.opt.Send(ctx, sessionID, p, ev.Chat, m)
		},
		edit: func(ctx context.Context, ref MessageRef, m Outgoing) error {
			return r.opt.Edit(ctx, sessionID, p, ref, m)
		},
		failed: func(err error) {
			r.log.Warn("gateway: reply not delivered", slog.String("session_id", sessionID), slog.String("error", err.Error()))
		},
	}
	if ev.Chat.Type == Group {
		stream.replyTo = ev.MessageID
	}
	if stream.drafts = draftsFor(ctx, p, ev.Chat, caps); stream.drafts != nil {
		stream.canEdit = false
	}
	prompter := chatPrompter{a: r.approvals, chatKey: key, chat: ev.Chat, buttons: caps.Buttons,
		allowed: func(u User) bool { return r.mayApprove(ctx, p, u, ev.User) },
		send:    stream.send, edit: stream.edit}
	start := time.Now()
	stopTyping := r.typing(ctx, p, ev.Chat)
	media, sink := r.media(p, ev, stream)
	in := engine.Input{Text: text, Source: p.Name(), Workdir: r.opt.Workdir,
		Model: r.chatModel(ctx, key), Agent: r.chatAgent(ctx, key), User: r.user(p, ev.User),
		Approval: safety.Asker{Prompter: prompter}, Attach: media.attach()}
	if sessionID == "" && r.opt.BindNew != nil {
		in.Created = func(ctx context.Context, id string) (string, error) { return r.opt.BindNew(ctx, key, id) }
	}
	res, err := r.opt.Engine.Turn(ctx, sessionID, in, sink)
	stopTyping()
	if err != nil {
		r.reply(ctx, p, ev, sessionID, "I could not run that: "+err.Error())
		return
	}
	// A new session, or one compression continued in a child session:
	// the chat goes on in the session the turn ended in.
	if res.SessionID != sessionID && r.opt.Bind != nil {
		if err := r.opt.Bind(context.WithoutCancel(ctx), key, res.SessionID); err != nil {
			r.log.Error("gateway: the chat's session was not recorded", slog.String("session_id", res.SessionID), slog.String("error", err.Error()))
		}
	}
	media.send(ctx, res.SessionID)
	if res.Err != nil && res.Stopped != agent.StopInterrupted {
		r.reply(ctx, p, ev, res.SessionID, "The turn stopped: "+res.Err.Error())
	}
	r.log.Info("gateway: turn", slog.String("platform", p.Name()), slog.String("session_id", res.SessionID),
		slog.String("stopped", string(res.Stopped)), slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		slog.Int("tokens", res.Usage.InputTokens+res.Usage.OutputTokens))
}

// typingEvery is how often the typing indicator is renewed: Telegram
// shows it for five seconds.
const typingEvery = 4 * time.Second

// typing shows that hermes is writing in chat until the returned
// function is called.
func (r *Runner) typing(ctx context.Context, p Platform, chat Chat) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(typingEvery)
		defer t.Stop()
		for {
			if err := p.Typing(ctx, chat); err != nil && ctx.Err() == nil {
				r.log.Debug("gateway: typing indicator", slog.String("platform", p.Name()), slog.String("error", err.Error()))
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// chatModel is the model chat key's turns call, "" for the configured one.
func (r *Runner) chatModel(ctx context.Context, key string) string {
	if r.opt.ChatModel == nil {
		return ""
	}
	return r.opt.ChatModel(ctx, key)
}

// chatAgent is the role agent chat key's new sessions run as, "" for
// none.
func (r *Runner) chatAgent(ctx context.Context, key string) string {
	if r.opt.ChatAgent == nil {
		return ""
	}
	return r.opt.ChatAgent(ctx, key)
}

func (r *Runner) resolve(ctx context.Context, key string) (string, bool, error) {
	if r.opt.Resolve == nil {
		return "", false, nil
	}
	return r.opt.Resolve(ctx, key)
}

// user is the user a platform identity is, "" when users are not
// configured (Authorize admitted only identified users otherwise).
func (r *Runner) user(p Platform, u User) string {
	if r.opt.Identify == nil {
		return ""
	}
	id, _ := r.opt.Identify(p.Name(), u)
	return id
}

// mayApprove says whether u may answer the approval requests on p of a
// turn run for requester.
func (r *Runner) mayApprove(ctx context.Context, p Platform, u, requester User) bool {
	if r.opt.Identify != nil && r.opt.MayApprove != nil {
		return r.opt.MayApprove(p.Name(), u, requester)
	}
	if r.opt.Approvers != nil {
		if ids := r.opt.Approvers(p.Name()); len(ids) > 0 {
			return slices.Contains(ids, u.ID)
		}
	}
	ok, _, err := r.authorize(ctx, p, u)
	return err == nil && ok
}

// reply sends a short message of hermes's own to the chat.
func (r *Runner) reply(ctx context.Context, p Platform, ev Event, sessionID, text string) {
	if _, err := r.opt.Send(context.WithoutCancel(ctx), sessionID, p, ev.Chat, Outgoing{Text: text, ReplyTo: ev.MessageID}); err != nil {
		r.log.Warn("gateway: reply not delivered", slog.String("session_id", sessionID), slog.String("error", err.Error()))
	}
}
