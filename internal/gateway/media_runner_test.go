package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/agent"
	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/safety/writeguard"
)

// filePlatform is a chat platform that also records the files sent, by
// name and content, as it reads them when sending.
type filePlatform struct {
	*chatPlatform
	fmu   sync.Mutex
	files []string
}

func (f *filePlatform) Send(ctx context.Context, chat Chat, m Outgoing) (MessageRef, error) {
	f.fmu.Lock()
	for _, path := range m.Files {
		b, err := os.ReadFile(path)
		f.files = append(f.files, fmt.Sprintf("%s=%q%v", filepath.Base(path), b, err))
	}
	f.fmu.Unlock()
	if m.Text == "" {
		m.Text = "[files]"
	}
	return f.chatPlatform.Send(ctx, chat, m)
}

// attachEngine runs a turn in session "s1" with a model that sees
// images: it records what Attach gave and answers with reply.
type attachEngine struct {
	reply string
	mu    sync.Mutex
	parts []llm.Part
}

func (e *attachEngine) Turn(ctx context.Context, _ string, in engine.Input, sink agent.Sink) (*engine.TurnResult, error) {
	if in.Attach != nil {
		parts, err := in.Attach(ctx, engine.AttachTo{SessionID: "s1", Images: true})
		if err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.parts = parts
		e.mu.Unlock()
	}
	sink.Event(agent.Event{Kind: agent.EventText, Text: e.reply})
	sink.Event(agent.Event{Kind: agent.EventDone})
	return &engine.TurnResult{SessionID: "s1", Result: &agent.Result{Stopped: agent.StopDone}}, nil
}

// mediaRunner runs a runner whose chats keep files in
// home/.hermes/sessions/ID/files and work in home/work.
func mediaRunner(t *testing.T, eng Turner, home string, maxIn int64) *filePlatform {
	p := &filePlatform{chatPlatform: newChatPlatform()}
	r := New(Options{Engine: eng, Platforms: []Platform{p}, Workdir: filepath.Join(home, "work"),
		Authorize: func(context.Context, string, User) (bool, string, error) { return true, "test", nil },
		Media: MediaOptions{
			Folder:     func(id string) string { return filepath.Join(home, ".hermes", "sessions", id, "files") },
			MaxInbound: maxIn,
			Guard:      writeguard.Guard{Home: home, HermesHome: filepath.Join(home, ".hermes"), Pid: -1},
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return p
}

// A photo and a document reach the turn saved in the session's folder, a
// file over the cap is refused in the chat and never written, and the
// turn runs all the same.
func TestRunnerReceivesMedia(t *testing.T) {
	home := t.TempDir()
	eng := &attachEngine{reply: "got them"}
	p := mediaRunner(t, eng, home, 64)
	p.events <- Event{ID: "m1", Kind: KindMessage, Chat: dm, User: owner, Text: "look", Media: []Media{
		fetched("photo.jpg", "photo", "image/jpeg", 0, pngBytes[:60], nil),
		fetched("../../notes.txt", "document", "text/plain", 0, []byte("hello"), nil),
		fetched("big.zip", "document", "application/zip", 10, make([]byte, 65), nil),
	}}
	p.waitUntil(t, "the reply and the refusal", func(sent, _ []string) bool {
		return containsAny(sent, "got them") && containsAny(sent, "I did not receive the document big.zip: it is larger than the limit of 64 bytes")
	})
	folder := filepath.Join(home, ".hermes", "sessions", "s1", "files")
	eng.mu.Lock()
	defer eng.mu.Unlock()
	var text strings.Builder
	images := 0
	for _, part := range eng.parts {
		text.WriteString(part.Text)
		if part.Type == llm.PartImage {
			images++
		}
	}
	if images != 1 || !strings.Contains(text.String(), filepath.Join(folder, "notes.txt")+" (5 bytes, text/plain)") || !strings.Contains(text.String(), "big.zip, which was not received") {
		t.Errorf("the model was given %+v", eng.parts)
	}
	entries, _ := os.ReadDir(folder)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "notes.txt photo.jpg" {
		t.Errorf("the folder holds %q; want the photo and the document, not the refused file", names)
	}
}

// A reply attaches a file of the working directory and is refused one
// outside it; the attachment lines are not shown.
func TestRunnerAttachesFiles(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(work, 0o700)
	os.WriteFile(filepath.Join(work, "chart.png"), pngBytes, 0o600)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("key"), 0o600)
	eng := &attachEngine{reply: "Here you go.\nMEDIA:chart.png\nMEDIA:~/.ssh/id_ed25519\n"}
	p := mediaRunner(t, eng, home, 1<<20)
	p.events <- Event{ID: "m1", Kind: KindMessage, Chat: dm, User: owner, Text: "chart please"}
	p.waitUntil(t, "the refusal", func(sent, _ []string) bool { return containsAny(sent, "I did not attach ~/.ssh/id_ed25519: it is ") })
	p.fmu.Lock()
	defer p.fmu.Unlock()
	if want := fmt.Sprintf("chart.png=%q<nil>", pngBytes); len(p.files) != 1 || p.files[0] != want {
		t.Errorf("files sent: %q; want only the chart", p.files)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if containsAny(p.sent, "MEDIA:") || !containsAny(p.sent, "Here you go.") {
		t.Errorf("the chat shows %q", p.sent)
	}
}
