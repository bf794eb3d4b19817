package notify

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// SlackLimit is the most characters hermes puts in one Slack message:
// Slack advises 4,000 for the text field and cuts far longer ones, so a
// long result goes out as a numbered series.
const SlackLimit = 4000

// slackTarget posts to a Slack incoming webhook.
type slackTarget struct {
	url    *url.URL
	client *http.Client
}

func newSlack(rest string, cfg Config) (*slackTarget, error) {
	u, err := parseHTTPURL(rest)
	if err != nil {
		return nil, err
	}
	return &slackTarget{url: u, client: cfg.client()}, nil
}

func (t *slackTarget) String() string { return "slack:" + maskURL(t.url) }

// secrets are the URL and its path: the path of an incoming webhook is
// its credential.
func (t *slackTarget) secrets() []string {
	return []string{t.url.String(), t.url.Path, strings.TrimPrefix(t.url.Path, "/services/")}
}

func (t *slackTarget) Split(msg Message) []Part {
	return series(msg, compose(msg, slackTitle), SlackLimit, runesUnit)
}

// Send posts {"text": ...}; Slack answers 200 "ok", 429 with a
// Retry-After when rate limited, and 4xx with a reason otherwise.
func (t *slackTarget) Send(ctx context.Context, p Part) error {
	r, err := postJSON(ctx, t.client, "slack", t.url.String(), map[string]string{"text": p.Text})
	if err != nil {
		return err
	}
	return checkStatus("slack", r)
}
