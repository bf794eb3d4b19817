package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// signal is closed once, when what it waits for has happened.
type signal struct {
	once sync.Once
	ch   chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{})} }

func (s *signal) fire() { s.once.Do(func() { close(s.ch) }) }

// syncTap stands in front of a Matrix homeserver and fires synced when
// the first answer to a /sync has been written to hermes: from then on
// hermes holds a sync token and long-polls for what comes next.
type syncTap struct {
	next   http.Handler
	synced *signal
}

func (s *syncTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.next.ServeHTTP(rec, r)
	if strings.HasSuffix(r.URL.Path, "/sync") && rec.status == http.StatusOK {
		s.synced.fire()
	}
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// imapTap is a TCP relay in front of an IMAP server that fires idling
// when a client sends IDLE: hermes has logged in, selected the inbox and
// waits for the server to say that mail came.
type imapTap struct {
	ln     net.Listener
	to     string
	idling *signal
	wg     sync.WaitGroup
}

func newIMAPTap(to string) (*imapTap, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	t := &imapTap{ln: ln, to: to, idling: newSignal()}
	t.wg.Add(1)
	go t.accept()
	return t, nil
}

func (t *imapTap) addr() string { return t.ln.Addr().String() }

func (t *imapTap) accept() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return
		}
		go t.relay(c)
	}
}

// relay copies both ways until either side closes, watching what the
// client writes for IDLE at the end of a command line.
func (t *imapTap) relay(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", t.to)
	if err != nil {
		return
	}
	defer up.Close()
	go func() {
		io.Copy(c, up)
		c.Close()
	}()
	buf := make([]byte, 4096)
	var line []byte
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
			line = append(line, buf[:n]...)
			for {
				i := bytes.IndexByte(line, '\n')
				if i < 0 {
					break
				}
				if bytes.HasSuffix(bytes.ToUpper(bytes.TrimRight(line[:i], "\r")), []byte(" IDLE")) {
					t.idling.fire()
				}
				line = line[i+1:]
			}
		}
		if err != nil {
			return
		}
	}
}

// close stops accepting; relays end with their connections.
func (t *imapTap) close() {
	t.ln.Close()
	t.wg.Wait()
}
