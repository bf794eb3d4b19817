package safety

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// denyFunc builds the DeniedError Check returns (and logs it).
type denyFunc func(v shell.Verdict, reason string, err error) error

// ungranted returns the dangerous findings not yet allowed for the
// session: by Allowlist, by an Always answer, or by a Session answer.
func (p *Policy) ungranted(sessionID string, findings []shell.Verdict) []shell.Verdict {
	allowed := make(map[string]bool, len(p.Allowlist))
	for _, entry := range p.Allowlist {
		if key, ok := ruleKey(entry); ok {
			allowed[key] = true
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []shell.Verdict
	for _, f := range findings {
		if f.Level == shell.Dangerous && !allowed[f.Rule] && !p.always[f.Rule] && !p.sessions[sessionID][f.Rule] {
			out = append(out, f)
		}
	}
	return out
}

// grant allows rules for the session, or from now on when always is set.
func (p *Policy) grant(sessionID string, rules []shell.Verdict, always bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = make(map[string]map[string]bool)
	}
	if p.always == nil {
		p.always = make(map[string]bool)
	}
	for _, r := range rules {
		if always {
			p.always[r.Rule] = true
			continue
		}
		if p.sessions[sessionID] == nil {
			p.sessions[sessionID] = make(map[string]bool)
		}
		p.sessions[sessionID][r.Rule] = true
	}
}

// judge asks the Judge, bounded by JudgeTimeout. Anything but a clear
// APPROVE or DENY — an error, a timeout, no judge — escalates to a person.
// The judge's approval covers this command only: it grants no rule for
// the session, so the next dangerous command is judged afresh.
func (p *Policy) judge(ctx context.Context, req Request, log *slog.Logger) Judgement {
	if p.Judge == nil {
		log.Warn("safety: smart approval has no judge; asking instead")
		return JudgeEscalate
	}
	timeout := p.JudgeTimeout
	if timeout <= 0 {
		timeout = DefaultJudgeTimeout
	}
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	j, err := p.Judge.Judge(jctx, req)
	switch {
	case err != nil:
		log.Warn("safety: smart approval failed; asking instead", "err", err)
		return JudgeEscalate
	case j == JudgeApprove || j == JudgeDeny:
		return j
	}
	log.Info("safety: smart approval escalated", "judgement", string(j))
	return JudgeEscalate
}

// prompt is a Prompter's reply, passed back from its goroutine.
type prompt struct {
	answer Answer
	err    error
}

// ask puts the request to a person and applies the answer. The Prompter
// runs in its own goroutine so that the Timeout holds even for one that
// ignores its context.
func (p *Policy) ask(ctx context.Context, a Asker, req Request, deny denyFunc) error {
	if a.Prompter == nil {
		nonInteractive := p.NonInteractive
		if a.NonInteractive != "" {
			nonInteractive = a.NonInteractive
		}
		if nonInteractive == NonInteractiveAllow {
			p.logger().Info("safety: dangerous command allowed: nobody to ask and approvals.non_interactive is allow",
				"session", req.SessionID, "rule", req.Verdict.Rule)
			note(ctx, "non_interactive", "")
			return nil
		}
		return deny(req.Verdict, "it needs approval ("+req.Verdict.Description+") and nobody can be asked in this session", nil)
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan prompt, 1)
	pr := a.Prompter
	go func() {
		a, err := pr.Prompt(pctx, req)
		done <- prompt{a, err}
	}()
	var reply prompt
	select {
	case reply = <-done:
	case <-pctx.Done():
		reply.err = pctx.Err()
	}
	switch {
	case ctx.Err() != nil:
		return deny(req.Verdict, "the approval request was cancelled", ctx.Err())
	case reply.err != nil && errors.Is(pctx.Err(), context.DeadlineExceeded):
		return deny(req.Verdict, fmt.Sprintf("the user did not answer within %s, so it timed out", timeout), reply.err)
	case reply.err != nil:
		return deny(req.Verdict, "asking the user for approval failed: "+reply.err.Error(), reply.err)
	}
	err := p.apply(req, reply.answer, deny)
	if err == nil {
		note(ctx, "person", "")
	}
	return err
}

// apply carries out a person's answer.
func (p *Policy) apply(req Request, a Answer, deny denyFunc) error {
	log := p.logger().With("session", req.SessionID, "rule", req.Verdict.Rule, "answer", a.String())
	switch a {
	case Once:
	case Session:
		p.grant(req.SessionID, req.Findings, false)
	case Always:
		p.grant(req.SessionID, req.Findings, true)
		if p.OnAlways != nil {
			for _, f := range req.Findings {
				if err := p.OnAlways(f.Rule); err != nil {
					log.Warn("safety: could not save the always answer; it holds until hermes restarts", "err", err)
				}
			}
		}
	case Deny:
		return deny(req.Verdict, "the user denied it ("+req.Verdict.Description+")", nil)
	default:
		return deny(req.Verdict, fmt.Sprintf("the approval prompt returned no valid answer (%v)", a), nil)
	}
	log.Info("safety: dangerous command approved")
	return nil
}
