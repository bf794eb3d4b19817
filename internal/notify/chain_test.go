package notify

import (
	"context"
	"io"
	"mime"
	"net"
	"net/mail"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/smtptest"
)

// smtpConfig points cfg at addr with the given credentials.
func smtpConfig(t *testing.T, cfg *Config, addr, password string) {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	cfg.SMTP = SMTP{Host: host, Port: n, Username: "hermes", Password: password, From: "Hermes <hermes@example.com>", Timeout: 10 * time.Second}
}

// TestFallbackChain walks the chain of seed 003: the webhook fails on
// every try, then email takes the message; with the mail server down as
// well, the local file does.
func TestFallbackChain(t *testing.T) {
	const password = "smtp-pass-9f8e7d"
	hook := newPlatform(t, reply{500, nil, "internal error"})

	t.Run("email after the webhook", func(t *testing.T) {
		cfg, sl := testConfig(t)
		ms := smtptest.Start(t, "hermes", password)
		smtpConfig(t, &cfg, ms.Addr, password)
		n := New(cfg)
		chain, err := n.ParseChain([]string{"webhook:" + hook.URL + "/in", "email:ops@example.com, lead@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		rep := n.Deliver(context.Background(), chain, sample)
		if rep.Delivered != "email:ops@example.com,lead@example.com" {
			t.Fatalf("Delivered = %q (%+v)", rep.Delivered, rep)
		}
		if got, want := statuses(rep), []string{StatusRetry, StatusRetry, StatusRetry, StatusFailed, StatusOK}; !reflect.DeepEqual(got, want) {
			t.Errorf("statuses = %v, want %v", got, want)
		}
		if len(sl.got()) != 3 {
			t.Errorf("sleeps = %v", sl.got())
		}
		mails := ms.Received()
		if len(mails) != 1 {
			t.Fatalf("server received %d mails", len(mails))
		}
		m := mails[0]
		if m.From != "hermes@example.com" || !reflect.DeepEqual(m.To, []string{"ops@example.com", "lead@example.com"}) {
			t.Errorf("envelope from %q to %v", m.From, m.To)
		}
		msg, err := mail.ReadMessage(strings.NewReader(string(m.Data)))
		if err != nil {
			t.Fatal(err)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if msg.Header.Get("From") != "Hermes <hermes@example.com>" || msg.Header.Get("To") != "ops@example.com, lead@example.com" || subject != "日报" {
			t.Errorf("headers From=%q To=%q Subject=%q", msg.Header.Get("From"), msg.Header.Get("To"), subject)
		}
		body, _ := io.ReadAll(msg.Body)
		// The SMTP DATA framing ends the body with a line break.
		text := strings.TrimSuffix(decodeQP(t, body), "\r\n")
		if want := "**销售** up 3%\r\n- item\r\n\r\nhttps://hermes.local/runs/r-42"; text != want {
			t.Errorf("body = %q, want %q", text, want)
		}
		if readLocal(t, cfg, "daily") != "" {
			t.Error("the local file was written although email took the message")
		}
		assertNoSecret(t, rep, password)
	})

	t.Run("local file when SMTP is down too", func(t *testing.T) {
		cfg, _ := testConfig(t)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		smtpConfig(t, &cfg, addr, password)
		n := New(cfg)
		chain, err := n.ParseChain([]string{"webhook:" + hook.URL + "/in", "email:ops@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		rep := n.Deliver(context.Background(), chain, sample)
		if rep.Delivered != "local" || rep.Err() != nil {
			t.Fatalf("Delivered = %q (%+v)", rep.Delivered, rep)
		}
		want := []string{StatusRetry, StatusRetry, StatusRetry, StatusFailed, StatusRetry, StatusRetry, StatusRetry, StatusFailed, StatusOK}
		if got := statuses(rep); !reflect.DeepEqual(got, want) {
			t.Errorf("statuses = %v, want %v", got, want)
		}
		got := readLocal(t, cfg, "daily")
		wantEntry := "## 2026-03-02T09:00:00Z — 日报\n\n_job: daily · run: r-42 · https://hermes.local/runs/r-42_\n\n**销售** up 3%\n- item\n\n"
		if got != wantEntry {
			t.Errorf("local file = %q, want %q", got, wantEntry)
		}
		assertNoSecret(t, rep, password)
	})

	t.Run("wrong SMTP password is permanent", func(t *testing.T) {
		cfg, _ := testConfig(t)
		ms := smtptest.Start(t, "hermes", password)
		smtpConfig(t, &cfg, ms.Addr, "wrong-password-123")
		rep := New(cfg).Deliver(context.Background(), []Target{mustParse(t, "email:ops@example.com", cfg)}, sample)
		if got := statuses(rep); !reflect.DeepEqual(got, []string{StatusFailed, StatusOK}) || rep.Delivered != "local" {
			t.Errorf("statuses = %v (%+v)", got, rep)
		}
		assertNoSecret(t, rep, "wrong-password-123")
	})
}

func TestLocalAppends(t *testing.T) {
	cfg, _ := testConfig(t)
	n := New(cfg)
	for _, text := range []string{"first", "second"} {
		msg := Message{Title: "t", Text: text, Job: "../../etc/日报"}
		if rep := n.Deliver(context.Background(), nil, msg); rep.Delivered != "local" {
			t.Fatalf("report %+v", rep)
		}
	}
	got := readLocal(t, cfg, "etc日报")
	if strings.Count(got, "## ") != 2 || strings.Index(got, "first") > strings.Index(got, "second") {
		t.Errorf("file = %q", got)
	}
}

func TestNotDeliveredWithoutHome(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.Home = ""
	rep := New(cfg).Deliver(context.Background(), nil, sample)
	if rep.Delivered != "" || rep.Err() == nil || !strings.Contains(rep.Err().Error(), "no hermes home") {
		t.Errorf("report %+v, err %v", rep, rep.Err())
	}
}

// Every delivery is told to Config.Delivered once it is over, with the
// report of where it went.
func TestDeliveredHearsEveryDelivery(t *testing.T) {
	cfg, _ := testConfig(t)
	var heard []string
	cfg.Delivered = func(_ context.Context, msg Message, rep Report) {
		heard = append(heard, msg.Text+" → "+rep.Delivered)
	}
	n := New(cfg)
	for _, text := range []string{"first", "second"} {
		n.Deliver(context.Background(), nil, Message{Title: "t", Text: text, Job: "j"})
	}
	if strings.Join(heard, "; ") != "first → local; second → local" {
		t.Errorf("heard %q", heard)
	}
}
