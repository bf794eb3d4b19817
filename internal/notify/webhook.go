package notify

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// webhookTarget posts the message as JSON to any URL, for systems of the
// operator's own. Any 2xx answer counts as delivered.
type webhookTarget struct {
	url    *url.URL
	client *http.Client
	clock  clock.Clock
}

func newWebhook(rest string, cfg Config) (*webhookTarget, error) {
	u, err := parseHTTPURL(rest)
	if err != nil {
		return nil, err
	}
	return &webhookTarget{url: u, client: cfg.client(), clock: cfg.clock()}, nil
}

// String shows the host only: a webhook's path or query is often its
// token.
func (t *webhookTarget) String() string { return "webhook:" + maskURL(t.url) }

func (t *webhookTarget) secrets() []string {
	s := []string{t.url.String(), t.url.RawQuery, t.url.Path}
	if p, ok := t.url.User.Password(); ok {
		s = append(s, p)
	}
	return s
}

func (t *webhookTarget) Split(msg Message) []Part { return single(msg, msg.Text) }

// webhookBody is the JSON a webhook receives.
type webhookBody struct {
	Title string `json:"title"`
	Text  string `json:"text"`
	Job   string `json:"job"`
	RunID string `json:"run_id"`
	Link  string `json:"link,omitempty"`
	Time  string `json:"time"`
}

func (t *webhookTarget) Send(ctx context.Context, p Part) error {
	body := webhookBody{
		Title: p.Msg.Title, Text: p.Text, Job: p.Msg.Job, RunID: p.Msg.RunID, Link: p.Msg.Link,
		Time: t.clock.Now().UTC().Format(time.RFC3339),
	}
	r, err := postJSON(ctx, t.client, "webhook", t.url.String(), body)
	if err != nil {
		return err
	}
	return checkStatus("webhook", r)
}
