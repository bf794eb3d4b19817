package mailtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// sentTimeout bounds how long Next waits for a mail.
const sentTimeout = 60 * time.Second

// Sent is a mail Mailpit received.
type Sent struct {
	// Raw is the message as it arrived, after Mailpit's Received line.
	Raw []byte
	// Msg is Raw parsed; its Body is unread.
	Msg *mail.Message
}

// Header returns the header field name of the mail.
func (m Sent) Header(name string) string { return m.Msg.Header.Get(name) }

// startMailpit runs Mailpit on two free loopback ports, accepting any
// SMTP login in plain text or after STARTTLS (with the certificate in
// certFile and keyFile), and follows its event stream so that Next
// learns of each mail as it arrives.
func (s *Server) startMailpit(t testing.TB, bin, certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	s.SMTPAddr, s.APIURL = freePort(t), "http://"+freePort(t)
	cmd := exec.Command(bin, "--database", filepath.Join(dir, "mailpit.db"),
		"--listen", s.APIURL[len("http://"):], "--smtp", s.SMTPAddr,
		"--smtp-auth-accept-any", "--smtp-auth-allow-insecure", "--smtp-disable-rdns",
		"--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile)
	cmd.Env = append(os.Environ(), "MP_DISABLE_VERSION_CHECK=true")
	run(t, "mailpit", cmd, "accessible via")
	listening(t, "mailpit", s.SMTPAddr)
	listening(t, "mailpit", s.APIURL[len("http://"):])
	ws, err := websocket.Dial("ws"+s.APIURL[len("http"):]+"/api/events", "", s.APIURL)
	if err != nil {
		t.Fatalf("mailtest: mailpit events: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	s.sent = make(chan string, 100)
	go func() {
		for {
			var ev struct {
				Type string
				Data struct{ ID string }
			}
			if err := websocket.JSON.Receive(ws, &ev); err != nil {
				return
			}
			if ev.Type == "new" {
				s.sent <- ev.Data.ID
			}
		}
	}()
}

// Next returns the next mail Mailpit receives (in the order they
// arrived), failing the test when none comes within a minute.
func (s *Server) Next(t testing.TB) Sent {
	t.Helper()
	select {
	case id := <-s.sent:
		return s.fetch(t, id)
	case <-time.After(sentTimeout):
		t.Fatalf("mailtest: no mail reached the SMTP server within %s", sentTimeout)
	}
	return Sent{}
}

// Count is how many mails Mailpit holds.
func (s *Server) Count(t testing.TB) int {
	t.Helper()
	var list struct {
		Total int `json:"messages_count"`
	}
	s.get(t, "/api/v1/messages", func(body io.Reader) error { return json.NewDecoder(body).Decode(&list) })
	return list.Total
}

func (s *Server) fetch(t testing.TB, id string) Sent {
	t.Helper()
	var out Sent
	s.get(t, "/api/v1/message/"+id+"/raw", func(body io.Reader) error {
		raw, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		out.Raw = raw
		out.Msg, err = mail.ReadMessage(bytes.NewReader(raw))
		return err
	})
	return out
}

func (s *Server) get(t testing.TB, path string, read func(io.Reader) error) {
	t.Helper()
	resp, err := http.Get(s.APIURL + path)
	if err != nil {
		t.Fatalf("mailtest: mailpit %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("mailtest: mailpit %s: %s", path, resp.Status)
	}
	if err := read(resp.Body); err != nil {
		t.Fatalf("mailtest: mailpit %s: %v", path, fmt.Errorf("reading: %w", err))
	}
}
