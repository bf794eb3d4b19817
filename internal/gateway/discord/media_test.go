package discord_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/discord/discordtest"
)

// An attachment becomes Media that downloads from its CDN URL without
// the bot token: the CDN is another host, and its URLs are signed.
func TestAttachmentsDownloadWithoutToken(t *testing.T) {
	var auth []string
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
		io.WriteString(w, "PNGDATA")
	}))
	t.Cleanup(cdn.Close)
	h := newHarness(t, nil)
	h.receive(t, nil)
	h.srv.UserMessage(discordtest.Incoming{Content: "look", Attachments: []discordtest.Attachment{
		{ID: "1", Filename: "cat.png", ContentType: "image/png", Size: 7, URL: cdn.URL + "/attachments/1/cat.png?ex=1&hm=sig"},
		{ID: "2", Filename: "notes.txt", Size: 3, URL: cdn.URL + "/attachments/2/notes.txt"},
	}})
	ev := h.next(t)
	if len(ev.Media) != 2 || ev.Media[0].Kind != "photo" || ev.Media[0].MIME != "image/png" || ev.Media[1].Kind != "document" || ev.Media[1].Name != "notes.txt" {
		t.Fatalf("media %+v", ev.Media)
	}
	rc, err := ev.Media[0].Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	if string(data) != "PNGDATA" || len(auth) != 1 || auth[0] != "" {
		t.Errorf("downloaded %q with Authorization %q, want the bytes and no token", data, auth)
	}
}
