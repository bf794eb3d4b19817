// Package notify delivers the results of hermes jobs to people: to a
// WeCom, Feishu or DingTalk group robot, a Slack channel, a Telegram
// chat, an email inbox, a generic webhook or, as the last resort, a
// Markdown file under $HERMES_HOME/deliveries.
//
// A delivery walks a chain of targets in order. Each target retries its
// transient failures (network errors, 5xx, 429 and the platform's own
// rate-limit codes) with backoff, honouring the wait a platform asks for;
// a permanent failure (bad key, 4xx, an error code that is not a rate
// limit) moves on to the next target at once. The local file always ends
// the chain, so a result is never lost, and every try is recorded in the
// Report the scheduler keeps with the run.
//
// Keys, tokens, passwords, signing secrets and webhook URLs that embed a
// key are masked wherever a target is named: in errors, logs and Reports.
package notify

import "context"

// Message is one result to deliver. Text is Markdown; platforms that do
// not render Markdown receive it as plain text.
type Message struct {
	Title string
	Text  string
	// Job and RunID name what produced the message; Link points at the
	// stored run, so a message cut to a platform's limit still leads to
	// the whole text.
	Job   string
	RunID string
	Link  string
	// Full, when there is no Link, says where the whole text can be
	// read (a command to run); only a truncation note shows it.
	Full string
}

// Part is one piece of a Message as a target sends it: a platform with a
// length limit gets either several parts (where it allows a series of
// messages) or one part cut to the limit.
type Part struct {
	Msg Message
	// Text is the body of this part, already within the platform's limit.
	Text string
	// Index counts from 1; Count is the number of parts.
	Index, Count int
}

// Target is one place a message can be delivered to.
//
// Send makes a single try and must not retry by itself: the chain does
// that, so every try is recorded. Its errors should be made with
// Transient or Permanent (an unclassified error counts as transient) and
// must not contain secrets; the chain masks them again as a safeguard.
type Target interface {
	// String names the target with its secrets masked, e.g.
	// "wecom:****c9d2"; it is safe to log and to store.
	String() string
	// Split turns a message into the parts this target sends.
	Split(msg Message) []Part
	// Send delivers one part.
	Send(ctx context.Context, p Part) error
}

// secretHolder is implemented by targets that know secret values which
// must never appear in text about them (errors from lower layers may
// quote a URL with a key in it).
type secretHolder interface {
	secrets() []string
}
