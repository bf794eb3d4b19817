package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
)

// The upload limits: a message carries at most 10 files, and a bot's
// upload is at most 10 MiB in all unless the server is boosted.
const (
	maxFiles       = 10
	maxUploadBytes = 10 << 20
)

// uploadForm builds the multipart body of a message with files: the JSON
// payload as payload_json and each file as files[n], listed in
// attachments.
func uploadForm(payload map[string]any, paths []string) (*bytes.Buffer, string, error) {
	if len(paths) > maxFiles {
		return nil, "", fmt.Errorf("discord: %d files; a message carries at most %d", len(paths), maxFiles)
	}
	total := int64(0)
	atts := make([]map[string]any, len(paths))
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, "", fmt.Errorf("discord: attaching %s: %w", p, err)
		}
		if total += st.Size(); total > maxUploadBytes {
			return nil, "", fmt.Errorf("discord: the files come to more than %d bytes, Discord's upload limit for bots; send fewer or smaller files", maxUploadBytes)
		}
		atts[i] = map[string]any{"id": i, "filename": filepath.Base(p)}
	}
	payload["attachments"] = atts
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	js, err := json.Marshal(payload)
	if err != nil {
		return nil, "", err
	}
	if err := w.WriteField("payload_json", string(js)); err != nil {
		return nil, "", err
	}
	for i, p := range paths {
		if err := copyFile(w, fmt.Sprintf("files[%d]", i), p); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &body, w.FormDataContentType(), nil
}

func copyFile(w *multipart.Writer, field, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("discord: attaching %s: %w", path, err)
	}
	defer f.Close()
	part, err := w.CreateFormFile(field, filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, f); err != nil {
		return fmt.Errorf("discord: attaching %s: %w", path, err)
	}
	return nil
}

// maxDownload bounds a download of an attachment someone sent; the
// gateway applies its own, usually smaller, cap.
const maxDownload = 500 << 20

// fetch downloads an attachment from Discord's CDN. The CDN's URLs are
// signed; the bot token is not sent there.
func (a *Adapter) fetch(ctx context.Context, rawURL string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("discord: attachment URL: %w", err)
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, a.transport(ctx, "GET attachment", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("discord: downloading an attachment: %s", resp.Status)
	}
	return readCloser{io.LimitReader(resp.Body, maxDownload), resp.Body}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}
