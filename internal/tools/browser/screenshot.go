package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/tool"
)

// maxInlinePNG is the largest screenshot carried inline as a data URL; a
// bigger one (a very long full page) is only saved to its file. The tool's
// output cap leaves room for it, so the dispatcher never cuts the image.
const (
	maxInlinePNG        = 8 << 20
	maxScreenshotOutput = maxInlinePNG*4/3 + 4096
)

// Screenshot is what browser_screenshot returns. ImageDataURL holds the
// PNG for whoever shows it to the model as an image; the other fields keep
// the text of the result small.
type Screenshot struct {
	Path         string `json:"path"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	Bytes        int    `json:"bytes"`
	ImageDataURL string `json:"image_data_url,omitempty"`
	Note         string `json:"note,omitempty"`
}

// unsafeName matches characters kept out of screenshot file names.
var unsafeName = lazy.Regexp{Expr: `[^A-Za-z0-9_-]+`}

// screenshotDir returns the directory screenshots go to, creating it.
func (m *Manager) screenshotDir() (string, error) {
	dir := m.opts.ScreenshotDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hermes", "screenshots")
	}
	return dir, os.MkdirAll(dir, 0o700)
}

// screenshot captures the visible screen or the whole page as PNG, saves
// it and returns it inline.
func screenshot(ctx context.Context, m *Manager, t *tab, raw json.RawMessage) (any, error) {
	var a struct {
		FullPage bool `json:"full_page"`
	}
	if err := decode(raw, &a, "an optional boolean full_page"); err != nil {
		return nil, err
	}
	shot := chromedp.CaptureScreenshot()
	if a.FullPage {
		shot = chromedp.FullScreenshot(100)
	}
	data, err := run(ctx, t, "taking a screenshot", NavigationTimeout, shot)
	if err != nil {
		return nil, err
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, tool.Errorf(tool.CodeUpstreamUnavailable, "Chromium returned an unreadable screenshot: %v", err)
	}
	dir, err := m.screenshotDir()
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "cannot create the screenshot directory: %v", err)
	}
	session := unsafeName.Get().ReplaceAllString(tool.InvocationFrom(ctx).SessionID, "_")
	if session == "" {
		session = "default"
	}
	name := fmt.Sprintf("%s-%s.png", session, time.Now().Format("20060102-150405.000"))
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "cannot save the screenshot: %v", err)
	}
	s := Screenshot{Path: path, Width: cfg.Width, Height: cfg.Height, Bytes: len(data)}
	if len(data) <= maxInlinePNG {
		s.ImageDataURL = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	} else {
		s.Note = fmt.Sprintf("the image is too large to show (%d bytes); take a screenshot of the visible screen instead", len(data))
	}
	return s, nil
}
