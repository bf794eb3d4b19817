package matrix

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/gateway"
)

// uploadTimeout bounds one file's upload or download, longer than a call.
const uploadTimeout = 5 * time.Minute

// sendFile uploads the file at path to the homeserver's media repository
// and sends it to the room: a picture as m.image, so clients show it,
// anything else as m.file.
func (a *Adapter) sendFile(ctx context.Context, roomID, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: " + err.Error(), Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", &gateway.SendError{Kind: gateway.Permanent, Message: "matrix: " + err.Error(), Err: err}
	}
	name := filepath.Base(path)
	typ := mime.TypeByExtension(strings.ToLower(filepath.Ext(name)))
	if typ == "" {
		typ = "application/octet-stream"
	}
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	defer cancel()
	var up struct {
		URI string `json:"content_uri"`
	}
	if err := a.callRaw(ctx, http.MethodPost, "/_matrix/media/v3/upload", url.Values{"filename": {name}}, typ, f, &up); err != nil {
		return "", classify(err)
	}
	msgtype := "m.file"
	if strings.HasPrefix(typ, "image/") {
		msgtype = "m.image"
	}
	return a.send(ctx, roomID, "m.room.message", map[string]any{
		"msgtype": msgtype, "body": name, "filename": name, "url": up.URI,
		"info": map[string]any{"mimetype": typ, "size": fi.Size()},
	})
}

// fileContent is the part of an m.image, m.file, m.audio or m.video
// content that describes its file.
type fileContent struct {
	Body     string `json:"body"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
	Info     struct {
		MIME string `json:"mimetype"`
		Size int64  `json:"size"`
	} `json:"info"`
}

// media turns a file message into the gateway's Media and the caption
// it carries: body is the caption when filename is set too, else the
// file's name.
func (a *Adapter) media(msgtype string, c fileContent) (gateway.Media, string, bool) {
	server, id, ok := strings.Cut(strings.TrimPrefix(c.URL, "mxc://"), "/")
	if !strings.HasPrefix(c.URL, "mxc://") || !ok || server == "" || id == "" || strings.Contains(id, "/") {
		return gateway.Media{}, "", false
	}
	kind := map[string]string{"m.image": "photo", "m.audio": "voice", "m.video": "video"}[msgtype]
	if kind == "" {
		kind = "document"
	}
	name, caption := c.Body, ""
	if c.Filename != "" {
		name = c.Filename
		if c.Body != c.Filename {
			caption = c.Body
		}
	}
	return gateway.Media{Kind: kind, Name: name, MIME: c.Info.MIME, Size: c.Info.Size,
		Fetch: func(ctx context.Context) (io.ReadCloser, error) { return a.download(ctx, server, id) }}, caption, true
}

// download fetches a file of the media repository: with the access token
// from the authenticated endpoint newer servers require, else from the
// older open one.
func (a *Adapter) download(ctx context.Context, server, id string) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	var lastErr error
	for _, prefix := range []string{"/_matrix/client/v1/media/download/", "/_matrix/media/v3/download/"} {
		path := prefix + pathEsc(server) + "/" + pathEsc(id)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+path, nil)
		if err != nil {
			cancel()
			return nil, a.transport(ctx, path, err)
		}
		a.authorize(req)
		resp, err := a.client.Do(req)
		if err != nil {
			cancel()
			return nil, a.transport(ctx, path, err)
		}
		if resp.StatusCode == http.StatusOK {
			return &cancelBody{ReadCloser: resp.Body, cancel: cancel}, nil
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		lastErr = a.apiErr(path, resp, raw)
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusMethodNotAllowed {
			break
		}
	}
	cancel()
	return nil, fmt.Errorf("matrix: downloading mxc://%s/%s: %w", server, id, lastErr)
}

// cancelBody ends a download's context when its body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
