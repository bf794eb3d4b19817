// Package smtptest runs a real SMTP server in a test, for the delivery
// of scheduled jobs' results by e-mail.
package smtptest

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mail is one message the server accepted.
type Mail struct {
	From string
	To   []string
	Data []byte
}

// Server is a real SMTP server (go-smtp) on a local port that accepts
// PLAIN auth for one user and keeps what it receives.
type Server struct {
	// Addr is host:port.
	Addr     string
	user     string
	password string
	mu       sync.Mutex
	mails    []Mail
}

// Start starts a server for user and password, closed when the test
// ends.
func Start(t testing.TB, user, password string) *Server {
	t.Helper()
	ms := &Server{user: user, password: password}
	s := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &mailSession{srv: ms}, nil
	}))
	s.Domain = "localhost"
	s.AllowInsecureAuth = true
	s.ReadTimeout = 10 * time.Second
	s.WriteTimeout = 10 * time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ms.Addr = l.Addr().String()
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return ms
}

// Received is the mail accepted so far.
func (ms *Server) Received() []Mail {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]Mail(nil), ms.mails...)
}

type mailSession struct {
	srv    *Server
	authed bool
	cur    Mail
}

func (s *mailSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *mailSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.srv.user || pass != s.srv.password {
			// 535 is what real servers answer to bad credentials.
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "invalid credentials"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *mailSession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	s.cur = Mail{From: from}
	return nil
}

func (s *mailSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.To = append(s.cur.To, to)
	return nil
}

func (s *mailSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	s.srv.mu.Lock()
	s.srv.mails = append(s.srv.mails, s.cur)
	s.srv.mu.Unlock()
	return nil
}

func (s *mailSession) Reset()        { s.cur = Mail{} }
func (s *mailSession) Logout() error { return nil }
