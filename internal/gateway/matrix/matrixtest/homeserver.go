// Package matrixtest starts a real Matrix homeserver for tests: dendrite,
// in a temporary directory, on a free loopback port, with a generated
// config and signing key, open registration and no federation, stopped
// when the test ends. Tests skip, saying what to install, when dendrite
// is missing. A Proxy in front of it adds the faults a homeserver shows
// in production: rate limits, dropped syncs and redelivered batches.
package matrixtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Install is how to get the dendrite the tests run.
const Install = "scripts/install-test-deps.sh (GOBIN=<repo>/bin go install github.com/matrix-org/dendrite/cmd/dendrite@v0.13.8)"

// Homeserver is a running dendrite.
type Homeserver struct {
	// URL is the Client-Server API root.
	URL string
	// ServerName is the part after the colon in user ids.
	ServerName string
	dir        string
	log        *lockedBuffer
}

// lockedBuffer collects dendrite's log, written by exec's copier.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Binary finds dendrite: $HERMES_DENDRITE, bin/dendrite at the root of
// the module the test runs in, or dendrite on PATH; "" when none.
func Binary() string {
	if p := os.Getenv("HERMES_DENDRITE"); p != "" {
		return p
	}
	if dir, err := os.Getwd(); err == nil {
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				if p := filepath.Join(dir, "bin", "dendrite"); isFile(p) {
					return p
				}
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if p, err := exec.LookPath("dendrite"); err == nil {
		return p
	}
	return ""
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Start starts dendrite for the test, or skips the test when it is not
// installed. It is stopped when the test ends.
func Start(t testing.TB) *Homeserver {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skipf("the Matrix tests need dendrite v0.13.8; install it with %s", Install)
	}
	dir := t.TempDir()
	hs := &Homeserver{ServerName: "localhost", dir: dir, log: &lockedBuffer{}}
	if err := writeKey(filepath.Join(dir, "matrix_key.pem")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dendrite.yaml"), []byte(config(dir, hs.ServerName)), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	hs.URL = "http://" + addr
	cmd := exec.Command(bin, "-config", filepath.Join(dir, "dendrite.yaml"), "-http-bind-address", addr,
		"-https-bind-address", "127.0.0.1:0", "-really-enable-open-registration")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, hs.log, hs.log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dendrite %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("dendrite's log:\n%s", hs.log.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		resp, err := http.Get(hs.URL + "/_matrix/client/versions")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return hs
			}
		}
		select {
		case <-exited:
			t.Fatalf("dendrite exited at start:\n%s", hs.log.String())
		case <-ctx.Done():
			t.Fatalf("dendrite did not answer on %s within 30 s:\n%s", hs.URL, hs.log.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// writeKey writes a new ed25519 signing key in dendrite's PEM format: the
// 32-byte seed under a Key-ID header.
func writeKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	block := &pem.Block{Type: "MATRIX PRIVATE KEY", Headers: map[string]string{"Key-ID": "ed25519:test"}, Bytes: priv.Seed()}
	return os.WriteFile(path, pem.EncodeToMemory(block), 0o600)
}

// config is a dendrite config for one test: SQLite files and JetStream in
// dir, no federation, open registration, and no rate limits of its own
// (a Proxy adds those where a test wants them).
func config(dir, serverName string) string {
	db := func(name string) string {
		return fmt.Sprintf(`{connection_string: "file:%s"}`, filepath.Join(dir, name+".db"))
	}
	return fmt.Sprintf(`version: 2
global:
  server_name: %s
  private_key: %s
  jetstream: {storage_path: %s, in_memory: true}
  disable_federation: true
  presence: {enable_inbound: false, enable_outbound: false}
  report_stats: {enabled: false}
federation_api: {database: %s}
key_server: {database: %s}
media_api: {base_path: %s, database: %s}
mscs: {database: %s}
relay_api: {database: %s}
room_server: {database: %s}
sync_api: {database: %s, search: {enabled: false}}
user_api: {account_database: %s, bcrypt_cost: 4}
client_api:
  registration_disabled: false
  guests_disabled: true
  rate_limiting: {enabled: false}
logging:
  - {type: std, level: warn}
`, serverName, filepath.Join(dir, "matrix_key.pem"), filepath.Join(dir, "jetstream"),
		db("federationapi"), db("keyserver"), filepath.Join(dir, "media"), db("mediaapi"), db("mscs"),
		db("relayapi"), db("roomserver"), db("syncapi"), db("userapi"))
}
