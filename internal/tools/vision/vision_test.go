package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
	"github.com/hermes-go/hermes/internal/tool"
)

// pngBytes encodes a tiny red image.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// setup returns the tool talking to a scripted server, and a context whose
// working directory holds red.png and notes.txt.
func setup(t *testing.T) (*Vision, *llmtest.Server, context.Context, []byte) {
	t.Helper()
	srv := llmtest.New(t)
	p := openai.NewChat(llm.Endpoint{BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
	dir := t.TempDir()
	img := pngBytes(t)
	if err := os.WriteFile(filepath.Join(dir, "red.png"), img, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{Workdir: dir})
	return New(Options{Provider: p, Model: "vision-m"}), srv, ctx, img
}

func call(ctx context.Context, v *Vision, args string) (Result, error) {
	r, err := v.Call(ctx, json.RawMessage(args))
	if err != nil {
		return Result{}, err
	}
	return r.(Result), nil
}

func TestLocalImageAndQuestionReachModel(t *testing.T) {
	tests := []struct{ args, question string }{
		{`{"image": "red.png", "question": "What colour is it?"}`, "What colour is it?"},
		{`{"image": "./red.png"}`, DefaultQuestion},
	}
	for _, tt := range tests {
		v, srv, ctx, img := setup(t)
		srv.Enqueue(llmtest.Reply{Text: "A red pixel."})
		res, err := call(ctx, v, tt.args)
		if err != nil {
			t.Fatalf("%s: %v", tt.args, err)
		}
		if res.Analysis != "A red pixel." || res.Model != "vision-m" {
			t.Errorf("%s: result = %+v", tt.args, res)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || reqs[0].Model != "vision-m" || len(reqs[0].Messages) != 1 {
			t.Fatalf("%s: requests = %+v", tt.args, reqs)
		}
		m := reqs[0].Messages[0]
		want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
		if m.Role != llm.RoleUser || !m.HasImages() || m.Content[0].ImageURL != want {
			t.Errorf("%s: message = %+v, want an image part with %q", tt.args, m, want[:40])
		}
		if m.Text() != tt.question {
			t.Errorf("%s: question = %q, want %q", tt.args, m.Text(), tt.question)
		}
	}
}

func TestURLPassedThrough(t *testing.T) {
	v, srv, ctx, _ := setup(t)
	srv.Enqueue(llmtest.Reply{Text: "A cat.", Model: "served-model"})
	res, err := call(ctx, v, `{"image": "https://example.com/cat.jpg", "question": "What animal?"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Analysis != "A cat." || res.Model != "served-model" {
		t.Errorf("result = %+v", res)
	}
	if got := srv.Requests()[0].Messages[0].Content[0].ImageURL; got != "https://example.com/cat.jpg" {
		t.Errorf("image url = %q", got)
	}
}

func TestRefusedImages(t *testing.T) {
	v, srv, ctx, _ := setup(t)
	dir := tool.InvocationFrom(ctx).Workdir
	big := filepath.Join(dir, "big.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxImageBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tests := []struct {
		args string
		code tool.Code
		want string
	}{
		{`{"image": "notes.txt"}`, tool.CodeInvalidArguments, "text/plain"},
		{`{"image": "missing.png"}`, tool.CodeNotFound, "does not exist"},
		{`{"image": "."}`, tool.CodeInvalidArguments, "directory"},
		{`{"image": "big.png"}`, tool.CodeInvalidArguments, "larger than 20 MB"},
		{`{"image": ""}`, tool.CodeInvalidArguments, "empty"},
		{`{"image": "ftp://host/a.png"}`, tool.CodeInvalidArguments, "http(s) URL"},
		{`{"image": 5}`, tool.CodeInvalidArguments, "arguments"},
	}
	for _, tt := range tests {
		_, err := call(ctx, v, tt.args)
		te, ok := tool.AsError(err)
		if !ok || te.Code != tt.code || !strings.Contains(te.Message, tt.want) {
			t.Errorf("%s: error = %v, want %s mentioning %q", tt.args, err, tt.code, tt.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model calls made for refused images", n)
	}
}

func TestModelFailure(t *testing.T) {
	v, srv, ctx, _ := setup(t)
	srv.Enqueue(llmtest.Reply{Status: 400, Error: &llmtest.ErrorReply{Message: "model does not support images"}})
	_, err := call(ctx, v, `{"image": "red.png"}`)
	te, ok := tool.AsError(err)
	if !ok || te.Code != tool.CodeUpstreamUnavailable || !strings.Contains(te.Message, "does not support images") {
		t.Errorf("error = %v, want upstream_unavailable", err)
	}
	srv.Enqueue(llmtest.Reply{Text: ""})
	_, err = call(ctx, v, `{"image": "red.png"}`)
	if te, ok := tool.AsError(err); !ok || te.Code != tool.CodeUpstreamUnavailable {
		t.Errorf("empty answer: error = %v, want upstream_unavailable", err)
	}
}

func TestSpecAndAvailability(t *testing.T) {
	s := New(Options{}).Spec()
	if s.Name != Name || s.Toolset != "vision" || !s.ParallelSafe || !s.Idempotent || !json.Valid(s.Parameters) {
		t.Errorf("spec = %+v", s)
	}
	if New(Options{}).Available() == nil {
		t.Error("a tool without a provider reports itself available")
	}
}
