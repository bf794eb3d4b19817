package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/redact"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
)

// DefaultMaxAttachment is the largest file a reply attaches when
// MediaOptions.MaxOutbound is not set: what Telegram takes as a document.
const DefaultMaxAttachment = 50 << 20

// MediaOptions say what happens to files in chats: where the files people
// send are kept and how big they may be, and what keeps a reply from
// attaching files it should not.
type MediaOptions struct {
	// Folder returns the folder a session's files are kept in
	// ($HERMES_HOME/sessions/<id>/files); nil leaves files sent to
	// hermes unread, and the model is told one came.
	Folder func(sessionID string) string
	// MaxInbound caps a file received, in bytes, counted as it is read;
	// zero or less receives none.
	MaxInbound int64
	// MaxOutbound caps a file a reply attaches (DefaultMaxAttachment
	// when zero).
	MaxOutbound int64
	// Guard is where secrets are kept (writeguard.FromEnv): no reply
	// attaches a file there, also inside the working directory.
	Guard writeguard.Guard
}

// turnMedia is the files of one turn in a chat: those the message
// brought, saved before the model sees them, and those the reply
// attaches, sent when it ends.
type turnMedia struct {
	r     *Runner
	p     Platform
	ev    Event
	lines *attachLines
	// started is the session the message went to, once known.
	started string
}

// media prepares the files of the turn answering ev; the sink it wraps
// around the chat's stream takes the reply's attachment lines out.
func (r *Runner) media(p Platform, ev Event, stream agent.Sink) (*turnMedia, agent.Sink) {
	m := &turnMedia{r: r, p: p, ev: ev, lines: &attachLines{next: stream}}
	return m, m.lines
}

// attach is the turn's engine.Input.Attach: nil when the message brought
// no file.
func (m *turnMedia) attach() func(context.Context, engine.AttachTo) ([]llm.Part, error) {
	if len(m.ev.Media) == 0 {
		return nil
	}
	return m.receive
}

// receive saves each file of the message in the session's folder and
// returns how the model is shown them. A file that cannot be kept (over
// the cap, a failed download) is told to the chat, with why, and to the
// model in a line; the message goes on without it.
func (m *turnMedia) receive(ctx context.Context, to engine.AttachTo) ([]llm.Part, error) {
	m.started = to.SessionID
	opt := m.r.opt.Media
	var parts []llm.Part
	for _, f := range m.ev.Media {
		name := safeName(f.Name, f.Kind)
		if opt.Folder == nil {
			parts = append(parts, llm.TextPart(fmt.Sprintf("[the user sent a %s, %s, which this gateway does not keep]", f.Kind, name)))
			continue
		}
		dir, err := m.folder(to.SessionID)
		var got saved
		if err == nil {
			got, err = receive(ctx, f, dir, opt.MaxInbound)
		}
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err() // the turn was stopped
		}
		if err != nil {
			m.r.log.Warn("gateway: a file was not received", slog.String("session_id", to.SessionID), slog.String("kind", f.Kind), slog.String("error", reason(err)))
			m.r.reply(ctx, m.p, m.ev, to.SessionID, fmt.Sprintf("I did not receive the %s %s: %s.", f.Kind, name, reason(err)))
			parts = append(parts, llm.TextPart(fmt.Sprintf("[the user sent a %s, %s, which was not received: %s; they were told]", f.Kind, name, reason(err))))
			continue
		}
		parts = append(parts, got.parts(f.Kind, to.Images)...)
	}
	return parts, nil
}

// reason words a failed download for the chat and the model; what a
// platform's error says passes the redactor first, in case it quotes a
// URL with the bot's token.
func reason(err error) string {
	var big *tooBigError
	if errors.As(err, &big) {
		return big.Error()
	}
	return "it could not be downloaded (" + redact.Secrets(err.Error()) + ")"
}

// folder is session id's folder. The id comes from hermes's store; it is
// checked to be one name all the same, because it is joined into a path.
func (m *turnMedia) folder(id string) (string, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("the session id %q cannot name a folder", id)
	}
	return m.r.opt.Media.Folder(id), nil
}

// send attaches the files the reply named, those that may go, and tells
// the chat which did not and why; the reply's text has gone already.
// sessionID is the session the turn ended in.
func (m *turnMedia) send(ctx context.Context, sessionID string) {
	paths := m.lines.Paths()
	if len(paths) == 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	opt := m.r.opt.Media
	out := outbound{workdir: m.r.opt.Workdir, guard: opt.Guard, max: opt.MaxOutbound}
	if out.max <= 0 {
		out.max = DefaultMaxAttachment
	}
	if opt.Folder != nil {
		for _, id := range []string{m.started, sessionID} {
			if dir, err := m.folder(id); err == nil {
				out.folders = append(out.folders, filepath.Clean(dir))
			}
		}
	}
	var files, refused []string
	for _, p := range paths {
		copied, err := out.check(p)
		if err != nil {
			m.r.log.Warn("gateway: an attachment was refused", slog.String("session_id", sessionID), slog.String("path", p), slog.String("why", err.Error()))
			refused = append(refused, fmt.Sprintf("%s: %s", p, err))
			continue
		}
		files = append(files, copied)
	}
	if len(files) > 0 {
		// Send returns once the platform has the files (or gave up), so
		// the copies taken for it can go.
		if _, err := m.r.opt.Send(ctx, sessionID, m.p, m.ev.Chat, Outgoing{Files: files}); err != nil {
			m.r.log.Warn("gateway: attachments not delivered", slog.String("session_id", sessionID), slog.String("error", err.Error()))
		}
		for _, f := range files {
			os.RemoveAll(filepath.Dir(f))
		}
	}
	if len(refused) > 0 {
		m.r.reply(ctx, m.p, m.ev, sessionID, "I did not attach "+strings.Join(refused, "; ")+".")
	}
}
