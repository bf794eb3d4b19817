// Package vision is the built-in "vision_analyze" tool: it shows an image
// to a vision-capable model with a question and returns the model's
// answer. The main model may be text-only or may not accept images inside
// tool results, so the image goes to a separate model call and only the
// text answer enters the conversation.
package vision

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

//go:embed description.md
var description string

// Name is the tool's name.
const Name = "vision_analyze"

// DefaultQuestion is asked when the call gives none.
const DefaultQuestion = "Describe this image in detail."

// MaxImageBytes caps a local image. Providers reject larger ones anyway
// (most accept around 20 MB), and base64 makes the request a third larger.
const MaxImageBytes = 20 << 20

// accepted reports the image types every vision provider takes, named
// as http.DetectContentType reports them.
func accepted(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// Options configure the tool.
type Options struct {
	// Provider answers the calls: the auxiliary vision provider when one
	// is configured, else the main one. Without one the tool reports
	// itself unavailable.
	Provider llm.Provider
	// Model names the model; empty uses the provider's configured model.
	Model string
}

// Result is the data of a successful call.
type Result struct {
	// Analysis is the model's answer to the question.
	Analysis string `json:"analysis"`
	// Model is the model that answered.
	Model string `json:"model"`
}

// Vision is the vision_analyze tool. It keeps no state and is safe for
// concurrent use.
type Vision struct {
	opts Options
}

// New returns the tool with opts.
func New(opts Options) *Vision { return &Vision{opts: opts} }

// Spec describes the tool. A call only reads an image and asks a model,
// so calls may run side by side and be retried.
func (v *Vision) Spec() tool.Spec {
	return tool.Spec{
		Name:         Name,
		Description:  description,
		Parameters:   schema,
		Toolset:      "vision",
		ParallelSafe: true,
		Idempotent:   true,
		// A vision model reading a large image can take a while.
		Timeout: 120 * time.Second,
	}
}

// Available reports the tool unusable when no provider was configured.
func (v *Vision) Available() error {
	if v.opts.Provider == nil {
		return errors.New("no model provider is configured for vision_analyze")
	}
	return nil
}

var schema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "image": {
      "type": "string",
      "description": "The image: a local file path (relative to the working directory, or absolute) or an http(s) URL. PNG, JPEG, GIF or WebP, at most 20 MB."
    },
    "question": {
      "type": "string",
      "description": "What to find out about the image. Defaults to a detailed description."
    }
  },
  "required": ["image"]
}`)

type args struct {
	Image    string `json:"image"`
	Question string `json:"question"`
}

// Call loads the image, asks the model and returns a Result. Model
// failures are upstream_unavailable; a missing file is not_found; a file
// that is not an accepted image is invalid_arguments.
func (v *Vision) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments must be an object with a string image and an optional string question: %v", err)
	}
	question := strings.TrimSpace(a.Question)
	if question == "" {
		question = DefaultQuestion
	}
	if v.opts.Provider == nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "no model provider is configured for vision_analyze")
	}
	img, err := imagePart(ctx, strings.TrimSpace(a.Image))
	if err != nil {
		return nil, err
	}
	req := &llm.Request{
		Model: v.opts.Model,
		// The image comes before the question: vendors report better
		// answers in that order.
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{img, llm.TextPart(question)}}},
	}
	resp, err := llm.Generate(ctx, v.opts.Provider, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "the vision model failed: %v", err)
	}
	text := strings.TrimSpace(resp.Text())
	if text == "" {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "the vision model returned an empty answer (finish reason %q)", resp.FinishReason)
	}
	model := resp.Model
	if model == "" {
		model = v.opts.Model
	}
	return Result{Analysis: text, Model: model}, nil
}

// imagePart turns the image argument into a content part: URLs are passed
// for the provider to fetch, local files are read and inlined as data: URLs.
func imagePart(ctx context.Context, image string) (llm.Part, error) {
	lower := strings.ToLower(image)
	switch {
	case image == "":
		return llm.Part{}, tool.Errorf(tool.CodeInvalidArguments, "image is empty; give a local file path or an http(s) URL")
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		return llm.ImagePart(image), nil
	case strings.HasPrefix(lower, "file://"):
		image = image[len("file://"):]
	case strings.Contains(image, "://") || strings.HasPrefix(lower, "data:"):
		return llm.Part{}, tool.Errorf(tool.CodeInvalidArguments, "image %q is neither a local file path nor an http(s) URL", short(image))
	}
	path := resolve(image, tool.InvocationFrom(ctx).Workdir)
	data, mime, err := readImage(path)
	if err != nil {
		return llm.Part{}, err
	}
	p := llm.ImagePart("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))
	p.MIMEType = mime
	return p, nil
}

// resolve makes a path absolute against the session's working directory,
// expanding a leading ~ to the home directory.
func resolve(path, workdir string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[1:])
		}
	}
	if !filepath.IsAbs(path) && workdir != "" {
		path = filepath.Join(workdir, path)
	}
	return filepath.Clean(path)
}

// readImage reads a local image, refusing what is too large or not one of
// the accepted types. The type is sniffed from the bytes, not taken from
// the file name, so a mislabelled file is caught before the model call.
func readImage(path string) ([]byte, string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", tool.Errorf(tool.CodeNotFound, "image file %s does not exist", path)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, "", tool.Errorf(tool.CodeDenied, "image file %s cannot be read: permission denied", path)
		}
		return nil, "", tool.Errorf(tool.CodeInternal, "opening %s: %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, "", tool.Errorf(tool.CodeInternal, "reading %s: %v", path, err)
	}
	if st.IsDir() {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "%s is a directory; give the path of an image file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxImageBytes+1))
	if err != nil {
		return nil, "", tool.Errorf(tool.CodeInternal, "reading %s: %v", path, err)
	}
	if len(data) > MaxImageBytes {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "%s is larger than %d MB; scale or crop it first", path, MaxImageBytes>>20)
	}
	if len(data) == 0 {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "%s is empty", path)
	}
	mime := http.DetectContentType(data)
	if !accepted(mime) {
		return nil, "", tool.Errorf(tool.CodeInvalidArguments, "%s is not a PNG, JPEG, GIF or WebP image (its content looks like %s)", path, mime)
	}
	return data, mime, nil
}

// short cuts a long argument for an error message.
func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
