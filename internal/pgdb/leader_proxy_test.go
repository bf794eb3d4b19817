package pgdb

import (
	"net"
	"net/url"
	"sync"
	"testing"
)

// proxy stands between a replica and the database, so a test can cut
// the replica off the way a dying process or a broken network does.
type proxy struct {
	ln       net.Listener
	upstream string

	mu     sync.Mutex
	conns  []net.Conn
	frozen chan struct{} // set while traffic is held; closed to let it go
}

// newProxy starts a proxy to the database of dsn and returns it with the
// DSN that goes through it.
func newProxy(t *testing.T, dsn string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, upstream: u.Host}
	t.Cleanup(func() { ln.Close(); p.kill() })
	go p.serve()
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipe(up, c)
		go p.pipe(c, up)
	}
}

// pipe copies from src to dst while the proxy is not frozen; frozen, it
// holds what arrives, as a network that drops packets does.
func (p *proxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		p.mu.Lock()
		gate := p.frozen
		p.mu.Unlock()
		if gate != nil {
			<-gate
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// freeze stops all traffic without closing a connection.
func (p *proxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen == nil {
		p.frozen = make(chan struct{})
	}
}

// kill closes every connection, as the kernel does when the process
// holding them dies.
func (p *proxy) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	if p.frozen != nil {
		close(p.frozen)
		p.frozen = nil
	}
}
