// Package pgtest starts a throwaway PostgreSQL server for tests: a fresh
// cluster in a temporary directory, listening on a free local port, gone
// when the test ends. Tests skip when PostgreSQL is not installed
// (scripts/install-test-deps.sh installs it).
//
// PostgreSQL refuses to run as root, so when tests run as root the
// server runs as the postgres user, which the package must find on the
// machine.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	_ "github.com/lib/pq" // registers the "postgres" database/sql driver
)

// superuser and database name the cluster's owner and the database tests
// get.
const (
	superuser = "hermes"
	database  = "hermes_test"
)

// Server is a running PostgreSQL server.
type Server struct {
	port int
	dir  string
}

// DSN is the URL of the server's test database, as the superuser with
// trust authentication (no password).
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", superuser, s.port, database)
}

// Port is the TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Start starts a server for t and stops it, deleting its files, when t
// ends. It skips t when PostgreSQL's programs are not installed, or when
// running as root without a postgres user to run them as.
func Start(t testing.TB) *Server {
	t.Helper()
	s, stop, skip, err := launch()
	if skip != "" {
		t.Skip(skip)
	}
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Logf("pgtest: %v", err)
		}
	})
	return s
}

// Launch starts a server for a program that is not a test (a
// benchmark): skip, when not empty, says why PostgreSQL cannot run here;
// stop stops the server and deletes its files.
func Launch() (s *Server, stop func() error, skip string, err error) { return launch() }

// launch starts a server. skip, when not empty, says why PostgreSQL
// cannot run here. stop stops the server and deletes its files.
func launch() (s *Server, stop func() error, skip string, err error) {
	bin, err := findBin()
	if err != nil {
		return nil, nil, "PostgreSQL is not installed; run scripts/install-test-deps.sh", nil
	}
	cred, err := credential()
	if err != nil {
		return nil, nil, fmt.Sprintf("cannot run PostgreSQL here: %v", err), nil
	}
	dir, err := os.MkdirTemp("", "hermes-pgtest-")
	if err != nil {
		return nil, nil, "", fmt.Errorf("temp dir: %w", err)
	}
	fail := func(err error) (*Server, func() error, string, error) {
		os.RemoveAll(dir)
		return nil, nil, "", err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(fmt.Errorf("chown %s: %w", dir, err))
		}
	}
	data := filepath.Join(dir, "data")

	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", superuser,
		"--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C")
	// The server user may not be able to enter the test's directory.
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}

	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	s = &Server{port: port, dir: dir}
	logFile, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return fail(err)
	}
	defer logFile.Close()
	srv := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-p", strconv.Itoa(port),
		"-h", "127.0.0.1", "-F", "-c", "fsync=off", "-c", "shared_buffers=16MB",
		"-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200",
		// Timestamps with time zone read back in the session's zone; UTC
		// keeps what tests see the same on every machine.
		"-c", "TimeZone=UTC")
	srv.Dir = dir
	// The server dies with the test binary, even one killed by a
	// timeout, rather than outliving it.
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	srv.Stdout, srv.Stderr = logFile, logFile
	if err := srv.Start(); err != nil {
		return fail(fmt.Errorf("start postgres: %w", err))
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	stop = func() error {
		defer os.RemoveAll(dir)
		return halt(srv, exited)
	}
	if err := s.waitReady(exited); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		stop()
		return nil, nil, "", fmt.Errorf("%v\n%s", err, log)
	}
	return s, stop, "", nil
}

// findBin is the directory of initdb and postgres: the newest
// /usr/lib/postgresql/*/bin (Debian's layout), else the one on PATH.
func findBin() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	best, bestVersion := "", -1
	for _, m := range matches {
		v, err := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(m))))
		if err == nil && v > bestVersion {
			best, bestVersion = filepath.Dir(m), v
		}
	}
	if best != "" {
		return best, nil
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", err
	}
	dir := filepath.Dir(p)
	if _, err := os.Stat(filepath.Join(dir, "postgres")); err != nil {
		return "", err
	}
	return dir, nil
}

// credential is who runs the server: nil (the current user) unless that
// is root, which PostgreSQL refuses; then the postgres user.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("postgres user has a non-numeric uid %q or gid %q", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort asks the kernel for a port nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until the server accepts connections, then creates the
// test database.
func (s *Server) waitReady(exited <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	admin := fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", superuser, s.port)
	db, err := sql.Open("postgres", admin)
	if err != nil {
		return fmt.Errorf("admin DSN %s: %w", admin, err)
	}
	defer db.Close()
	for {
		err := db.PingContext(ctx)
		if err == nil {
			if _, err := db.ExecContext(ctx, "CREATE DATABASE "+database); err != nil {
				return fmt.Errorf("create database: %w", err)
			}
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("postgres exited before accepting connections: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("postgres did not accept connections within 15s: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// halt asks the server for a fast shutdown (SIGINT) and kills it when it
// takes more than 10 seconds.
func halt(srv *exec.Cmd, exited <-chan error) error {
	if err := srv.Process.Signal(syscall.SIGINT); err != nil {
		return nil // already gone
	}
	select {
	case <-exited:
		return nil
	case <-time.After(10 * time.Second):
		srv.Process.Kill()
		<-exited
		return errors.New("postgres did not stop within 10s; killed it")
	}
}
