package wecom_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/wecom"
	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

// appRig is an App in front of a wecomtest server, receiving, with its
// callbacks served and its log kept.
type appRig struct {
	srv    *wecomtest.Server
	app    *wecom.App
	clock  *clock.Fake
	log    *syncBuf
	url    string
	mu     sync.Mutex
	events []gateway.Event
	got    chan gateway.Event
}

type syncBuf struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// wait blocks until the log holds want n times.
func (s *syncBuf) wait(t *testing.T, want string, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		if strings.Count(s.b.String(), want) >= n {
			s.mu.Unlock()
			return
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("the log never said %q:\n%s", want, s.String())
		}
	}
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newAppRig(t *testing.T, now time.Time) *appRig {
	t.Helper()
	r := &appRig{clock: clock.NewFake(now), log: &syncBuf{}, got: make(chan gateway.Event, 16)}
	r.srv = wecomtest.New(wecomtest.Options{Clock: r.clock})
	t.Cleanup(r.srv.Close)
	app, err := wecom.NewApp(wecom.AppOptions{CorpID: r.srv.CorpID, AgentID: r.srv.AgentID, Secret: r.srv.Secret,
		Token: r.srv.Token, EncodingAESKey: r.srv.EncodingAESKey, BaseURL: r.srv.URL, Clock: r.clock,
		Logger: slog.New(slog.NewTextHandler(r.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	r.app = app
	path, h := app.WebhookHandler()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	r.url = hs.URL + path
	r.srv.SetCallback(r.url)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		app.Receive(ctx, func(_ context.Context, ev gateway.Event) error {
			r.got <- ev
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	// Receive runs in its own goroutine: wait until it takes callbacks.
	deadline := time.Now().Add(10 * time.Second)
	for !r.receiving(t) {
		if time.Now().After(deadline) {
			t.Fatal("Receive does not take callbacks")
		}
		runtime.Gosched()
	}
	return r
}

// receiving posts nothing but checks that Receive has started, by a
// callback without text that is answered 200 only while it runs.
func (r *appRig) receiving(t *testing.T) bool {
	t.Helper()
	sealed, err := r.srv.Seal("<xml><ToUserName>" + r.srv.CorpID + "</ToUserName><FromUserName>probe</FromUserName><CreateTime>1</CreateTime><MsgType>event</MsgType><Event>enter_agent</Event></xml>")
	if err != nil {
		t.Fatal(err)
	}
	status, _, err := r.srv.Post(context.Background(), sealed.Query, sealed.XML)
	if err != nil {
		t.Fatal(err)
	}
	return status == 200
}

// next returns the next delivered event.
func (r *appRig) next(t *testing.T) gateway.Event {
	t.Helper()
	select {
	case ev := <-r.got:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event delivered")
	}
	return gateway.Event{}
}

// none checks that nothing was delivered.
func (r *appRig) none(t *testing.T) {
	t.Helper()
	select {
	case ev := <-r.got:
		t.Fatalf("delivered %+v", ev)
	default:
	}
}
