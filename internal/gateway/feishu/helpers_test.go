package feishu_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
	"github.com/hermes-go/hermes/internal/gateway/feishu"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

// rig is an adapter receiving from a fake Feishu: the events it
// delivers, and its log.
type rig struct {
	fs   *feishutest.Server
	a    *feishu.Adapter
	hook *httptest.Server
	logs *syncBuffer

	mu     sync.Mutex
	events []gateway.Event
	// refuse makes deliver fail this many more times.
	refuse int
	// onButton answers a press as the gateway does.
	onButton func(gateway.Event)
	// chats counts the chats made up for sends.
	chats int
}

// newRig starts a fake Feishu with o and an adapter for it whose Receive
// runs until the test ends.
func newRig(t *testing.T, o feishutest.Options, edit func(*feishu.Options)) *rig {
	t.Helper()
	fs := feishutest.New(o)
	r := &rig{fs: fs, logs: &syncBuffer{}}
	opt := feishu.Options{AppID: fs.AppID, AppSecret: fs.AppSecret, VerificationToken: fs.VerificationToken,
		EncryptKey: fs.EncryptKey, BaseURL: fs.URL, Clock: o.Clock,
		Logger: slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	if edit != nil {
		edit(&opt)
	}
	a, err := feishu.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	r.a = a
	if path, h := a.WebhookHandler(); h != nil {
		r.hook = httptest.NewServer(h)
		fs.SetEventURL(r.hook.URL + path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Receive(ctx, func(ctx context.Context, ev gateway.Event) error {
			r.mu.Lock()
			if r.refuse > 0 {
				r.refuse--
				r.mu.Unlock()
				return context.DeadlineExceeded
			}
			r.events = append(r.events, ev)
			on := r.onButton
			r.mu.Unlock()
			if ev.Kind == gateway.KindButton && on != nil {
				on(ev)
			}
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		if r.hook != nil {
			r.hook.Close()
		}
		fs.Close()
		for _, secret := range []string{fs.AppSecret, fs.VerificationToken, fs.EncryptKey} {
			if secret != "" && bytes.Contains([]byte(r.logs.String()), []byte(secret)) {
				t.Errorf("a secret is in the adapter's log:\n%s", r.logs.String())
			}
		}
	})
	// Receive is ready once it takes an event.
	if opt.LongConnection {
		r.wait(t, fs.Connected)
	}
	probe, _ := fs.Message(feishutest.Incoming{ChatID: "oc_probe", Text: "probe"})
	r.waitAnswered(t, probe)
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
	return r
}

// wait waits for cond, checked at every change of the fake.
func (r *rig) wait(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.fs.Wait(ctx, cond); err != nil {
		t.Fatalf("gave up waiting; events %+v\nlog:\n%s", r.delivered(), r.logs.String())
	}
}

func (r *rig) delivered() []gateway.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Event(nil), r.events...)
}

// waitAnswered waits until an event's posts got a 2xx.
func (r *rig) waitAnswered(t *testing.T, id string) {
	t.Helper()
	r.wait(t, func() bool {
		for _, s := range r.fs.Statuses(id) {
			if s/100 == 2 {
				return true
			}
		}
		return false
	})
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
