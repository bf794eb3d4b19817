package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/config"
	"github.com/hermes-go/hermes/internal/llm"
)

// Probe checks an endpoint a person is about to configure: it lists its
// models and makes one small call. Its requests go to the endpoint's base
// URL and nowhere else: a redirect is refused rather than followed, since
// a vendor's key sent on to another host (x-api-key survives Go's
// cross-host redirects) would be given away. Errors never hold the key.
type Probe struct {
	r config.Resolved
	p llm.Provider
}

// NewProbe builds the probe for r.
func NewProbe(r config.Resolved) (*Probe, error) {
	ep := r.Endpoint()
	t := ep.Timeouts
	if t == (llm.Timeouts{}) {
		t = llm.DefaultTimeouts
	}
	client := llm.NewHTTPClient(t)
	client.CheckRedirect = func(*http.Request, []*http.Request) error {
		return errors.New("the server answered with a redirect, which hermes does not follow with a key; give the final API root as the base URL")
	}
	ep.Client = client
	p, err := newAdapter(r.APIMode, ep)
	return &Probe{r: r, p: p}, err
}

// Models lists the models the endpoint serves.
func (pr *Probe) Models(ctx context.Context) ([]llm.ModelInfo, error) {
	lister, ok := pr.p.(llm.ModelLister)
	if !ok {
		return nil, fmt.Errorf("provider %s cannot list its models", pr.r.Provider)
	}
	models, err := lister.ListModels(ctx)
	return models, pr.scrub(err)
}

// Call sends one short prompt to model and returns the reply's text.
func (pr *Probe) Call(ctx context.Context, model string) (string, error) {
	req := &llm.Request{Model: model, NoStream: true, MaxTokens: 16,
		Messages: []llm.Message{llm.UserMessage("Reply with the word OK.")}}
	var resp *llm.Response
	var err error
	for ev := range pr.p.Stream(ctx, req) {
		switch ev.Kind {
		case llm.EventDone:
			resp = ev.Response
		case llm.EventError:
			err = ev.Err
		}
	}
	if err != nil {
		return "", pr.scrub(err)
	}
	if resp == nil {
		return "", fmt.Errorf("provider %s ended the call without a reply", pr.r.Provider)
	}
	return resp.Text(), nil
}

// scrub keeps the key out of an error a server may have echoed it in.
func (pr *Probe) scrub(err error) error {
	key := string(pr.r.APIKey)
	if err == nil || key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(err.Error(), key, config.Redact(key)), err: err}
}

// scrubbed is an error whose text has the key redacted; Unwrap keeps the
// kind (llm.KindOf) of the original.
type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }
