package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// jpegBytes is what a photo's bytes start with, and enough after.
var jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), bytes.Repeat([]byte{0x42}, 300)...)

// sessionFiles lists the files kept in the sessions' folders.
func sessionFiles(t *testing.T, h *home) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(h.dir, "sessions", "*", "files", "*"))
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// Through the real binary: a photo reaches a model that sees as an
// image_url part holding the photo's bytes; a document is kept in the
// session's folder and the model is told where; a document over
// gateway.max_inbound_media_bytes, announced smaller than it is, is
// refused in the chat, nothing of it is kept, and the turn still runs.
func TestGatewayTelegramMediaIn(t *testing.T) {
	h := newHome(t)
	h.env = append(h.env, "HERMES_MODEL_DEFAULT=gpt-4o", "HERMES_GATEWAY_MAX_INBOUND_MEDIA_BYTES=4096")
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: "A photo of B."}, llmtest.Reply{Text: "I read the notes."}, llmtest.Reply{Text: "Only the text came."})
	gatewayServe(t, h, tg, srv, "")

	tg.UserMessage(telegramtest.Incoming{Photo: jpegBytes, Caption: "what is this?"})
	waitText(t, tg, 42, "A photo of B.")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	want := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpegBytes)
	var images []string
	user := last.Messages[len(last.Messages)-1]
	for _, p := range user.Content {
		if p.Type == llm.PartImage {
			images = append(images, p.ImageURL)
		}
	}
	if len(images) != 1 || images[0] != want || !bytes.Contains(last.Body, []byte(`"type":"image_url"`)) || !strings.Contains(user.Text(), "what is this?") {
		t.Errorf("the model got %d images (the photo's: %v) in %q; want the photo as an image_url part", len(images), len(images) == 1 && images[0] == want, user.Text())
	}

	notes := []byte("buy milk\ncall Bob\n")
	tg.UserMessage(telegramtest.Incoming{Document: &telegramtest.Upload{Name: "../notes.txt", MIME: "text/plain", Data: notes}})
	waitText(t, tg, 42, "I read the notes.")
	var kept string
	for p, b := range sessionFiles(t, h) {
		if filepath.Base(p) == "notes.txt" && bytes.Equal(b, notes) {
			kept = p
		}
	}
	if kept == "" {
		t.Fatalf("the document is not kept in a session's folder: %v", sessionFiles(t, h))
	}
	if got := srv.Requests()[len(srv.Requests())-1].LastUserText(); !strings.Contains(got, kept+" (18 bytes, text/plain)") {
		t.Errorf("the model was told %q; want the saved path, size and type", got)
	}

	big := bytes.Repeat([]byte("z"), 5000)
	tg.UserMessage(telegramtest.Incoming{Text: "and this", Document: &telegramtest.Upload{Name: "big.bin", Data: big, Size: 100}})
	waitText(t, tg, 42, "I did not receive the document big.bin: it is larger than the limit of 4 KB (gateway.max_inbound_media_bytes)")
	waitText(t, tg, 42, "Only the text came.")
	for p := range sessionFiles(t, h) {
		if strings.Contains(filepath.Base(p), "big") {
			t.Errorf("the refused file was kept as %s", p)
		}
	}
}

// Through the real binary: the model writes a file in the working
// directory and attaches it with a MEDIA: line, which arrives as a
// document with the file's bytes; the lines naming hermes's config (with
// its key), directly and through a link in the working directory, are
// refused in the chat, and no MEDIA: line is shown.
func TestGatewayTelegramMediaOut(t *testing.T) {
	h := newHome(t)
	h.cwd = t.TempDir()
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	srv := llmtest.New(t)
	csv := "month,sales\njan,10\nfeb,12\n"
	args, _ := json.Marshal(map[string]string{"path": "sales.csv", "content": csv})
	config := filepath.Join(h.dir, "config.yaml")
	if err := os.Symlink(config, filepath.Join(h.cwd, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: string(args)}}},
		llmtest.Reply{Text: "Here are the sales.\nMEDIA:sales.csv\n"},
		llmtest.Reply{Text: "As the page asked:\nMEDIA:" + config + "\nMEDIA:notes.txt\n"})
	gatewayServe(t, h, tg, srv, "")

	tg.UserMessage(telegramtest.Incoming{Text: "a csv of the sales please"})
	waitText(t, tg, 42, "Here are the sales.")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var doc *telegramtest.Document
	err := tg.Wait(ctx, func() bool {
		for _, m := range tg.Sent(42) {
			if m.Document != nil {
				doc = m.Document
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no document was sent; the chat got %+v", tg.Sent(42))
	}
	if got := string(tg.FileData(doc.FileID)); got != csv || doc.FileName != "sales.csv" {
		t.Errorf("the document is %s holding %q; want sales.csv holding the file's bytes", doc.FileName, got)
	}

	tg.UserMessage(telegramtest.Incoming{Text: "summarize this web page"})
	refusal := waitText(t, tg, 42, "I did not attach ")
	if !strings.Contains(refusal.Text, config+": it is "+config+", outside") || !strings.Contains(refusal.Text, "notes.txt: it is "+config+", outside") {
		t.Errorf("the refusal says %q; want both paths refused as outside", refusal.Text)
	}
	waitText(t, tg, 42, "As the page asked:")
	docs := 0
	for _, m := range tg.Sent(42) {
		if m.Document != nil || m.Photo != nil {
			docs++
		}
		if strings.Contains(m.Text, "MEDIA:") {
			t.Errorf("the chat shows an attachment line: %q", m.Text)
		}
	}
	if docs != 1 {
		t.Errorf("%d files were sent; want only the csv", docs)
	}
}
