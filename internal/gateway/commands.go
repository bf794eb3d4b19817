package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/slash"
)

// command handles a slash command, reporting whether the message was
// one. Commands about the running turn (/stop, /approve, /deny) act at
// once, whatever the chat is doing; the others wait their turn like any
// message. An unknown command, and a skill, go to the model as text.
func (r *Runner) command(ctx context.Context, p Platform, ev Event, key string) bool {
	name, args, ok := slash.Parse(ev.Text)
	if !ok {
		return false
	}
	c, err := r.commands().Lookup(slash.Chat, name)
	if err != nil {
		r.reply(ctx, p, ev, "", err.Error())
		return true
	}
	switch c.Name {
	case "stop":
		if !r.chats.stop(key) {
			r.reply(ctx, p, ev, "", "Nothing is running.")
		}
	case "approve", "deny":
		if _, err := r.approvals.command(key, ev.User, c.Name == "deny", args); err != nil {
			r.reply(ctx, p, ev, "", err.Error())
		}
	case "help":
		r.reply(ctx, p, ev, "", r.commands().Help(slash.Chat)+"\nAnything else goes to hermes.")
	case "compress":
		if r.opt.Compress == nil {
			r.reply(ctx, p, ev, "", "/compress is not available here.")
			return true
		}
		// It waits for the running turn: both change the session.
		r.chats.submit(key, false, func(ctx context.Context) { r.reply(ctx, p, ev, "", r.opt.Compress(ctx, key, args)) })
	case "usage":
		if r.opt.Usage == nil {
			r.reply(ctx, p, ev, "", "/usage is not available here.")
			return true
		}
		r.reply(ctx, p, ev, "", r.opt.Usage(ctx, key))
	case "skills":
		var lines []string
		for _, c := range r.commands().Commands(slash.Chat) {
			if c.Skill {
				lines = append(lines, c.Usage()+" — "+c.Description)
			}
		}
		if len(lines) == 0 {
			lines = []string{"No skills yet: hermes writes them as it learns."}
		}
		r.reply(ctx, p, ev, "", strings.Join(lines, "\n"))
	case "model":
		if r.opt.Model == nil {
			r.reply(ctx, p, ev, "", "/model is not available here.")
			return true
		}
		r.reply(ctx, p, ev, "", r.opt.Model(ctx, key, args))
	case "agent":
		if r.opt.Agent == nil {
			r.reply(ctx, p, ev, "", "/agent is not available here.")
			return true
		}
		// A switch starts a new session: it waits for the running turn.
		r.chats.submit(key, false, func(ctx context.Context) { r.reply(ctx, p, ev, "", r.opt.Agent(ctx, key, args)) })
	case "whoami":
		ok, why, _ := r.authorize(ctx, p, ev.User)
		r.reply(ctx, p, ev, "", fmt.Sprintf("You are %s (id %s) on %s; allowed: %v (%s).", ev.User.Name, ev.User.ID, p.Name(), ok, why))
	case "new":
		r.chats.submit(key, true, func(ctx context.Context) {
			if r.opt.Forget != nil {
				if err := r.opt.Forget(ctx, key); err != nil {
					r.reply(ctx, p, ev, "", "The session was not reset: "+err.Error())
					return
				}
			}
			r.reply(ctx, p, ev, "", "A new session starts with your next message.")
		})
	default:
		if c.Skill && r.opt.Skill != nil {
			text, err := r.opt.Skill(c.Name, args)
			if err != nil {
				r.reply(ctx, p, ev, "", err.Error())
				return true
			}
			r.queueTurn(ctx, p, ev, key, text)
			return true
		}
		r.reply(ctx, p, ev, "", "/"+c.Name+" is not available here yet.")
	}
	return true
}

// commands returns the slash commands the gateway takes.
func (r *Runner) commands() slash.Registry {
	if r.opt.Commands != nil {
		return *r.opt.Commands
	}
	return slash.Registry{}
}
