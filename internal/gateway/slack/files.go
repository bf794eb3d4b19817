package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/gateway"
)

// slackFile is a file shared in a message.
type slackFile struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	MIME     string `json:"mimetype"`
	Size     int64  `json:"size"`
	Download string `json:"url_private_download"`
	Private  string `json:"url_private"`
	// Mode is "hidden_by_limit" or "tombstone" for a file that cannot be
	// had.
	Mode string `json:"mode"`
}

// media lists the files of a message for the gateway, which decides
// whether to fetch them. A file Slack hides or has deleted is left out.
func (a *Adapter) media(raw []json.RawMessage) []gateway.Media {
	var out []gateway.Media
	for _, r := range raw {
		var f slackFile
		if json.Unmarshal(r, &f) != nil || f.Mode == "hidden_by_limit" || f.Mode == "tombstone" {
			continue
		}
		link := f.Download
		if link == "" {
			link = f.Private
		}
		if link == "" {
			continue
		}
		kind := "document"
		if strings.HasPrefix(f.MIME, "image/") {
			kind = "photo"
		}
		out = append(out, gateway.Media{Kind: kind, Name: f.Name, MIME: f.MIME, Size: f.Size,
			Fetch: func(ctx context.Context) (io.ReadCloser, error) { return a.download(ctx, link, f.MIME) }})
	}
	return out
}

// download fetches a private file with the bot token; mime is the type
// Slack announced, to tell the file from Slack's sign-in page. The token goes
// only to Slack's own hosts (or the configured API root's host, for a
// proxy or a test server): a link in an event that pointed elsewhere
// would otherwise hand the token to whoever runs that host.
func (a *Adapter) download(ctx context.Context, link, mime string) (io.ReadCloser, error) {
	u, err := url.Parse(link)
	if err != nil || !a.fileHost(u) {
		return nil, fmt.Errorf("slack: a file link to %q is not Slack's; hermes sends the bot token only to https://*.slack.com", hostOf(link))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, a.transport(ctx, "file download", err)
	}
	req.Header.Set("Authorization", "Bearer "+a.botToken)
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, a.transport(ctx, "file download", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("slack: file download from %s: %s (the app needs the files:read scope)", u.Host, resp.Status)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") && !strings.HasPrefix(mime, "text/html") {
		// Slack's sign-in page, with 200: the token may not read files.
		resp.Body.Close()
		return nil, fmt.Errorf("slack: file download from %s got Slack's sign-in page, not the file; the app needs the files:read scope", u.Host)
	}
	return resp.Body, nil
}

// fileHost reports whether u may be sent the bot token: https on
// slack.com or one of its subdomains, or the host of the API root.
func (a *Adapter) fileHost(u *url.URL) bool {
	if base, err := url.Parse(a.base); err == nil && base.Host != "" && u.Host == base.Host && u.Scheme == base.Scheme {
		return true
	}
	h := u.Hostname()
	return u.Scheme == "https" && (h == "slack.com" || strings.HasSuffix(h, ".slack.com"))
}

// hostOf is the host of a link, for messages.
func hostOf(link string) string {
	if u, err := url.Parse(link); err == nil && u.Host != "" {
		return u.Host
	}
	return "?"
}
