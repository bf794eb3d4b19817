package sqlexec

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// envOf is an env lookup backed by a map.
func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestExpandEnv(t *testing.T) {
	env := envOf(map[string]string{"USER_": "app", "PW": "s3cr$t", "EMPTY": ""})
	tests := []struct {
		in, want, wantErr string
	}{
		{"postgres://${USER_}:${PW}@db/x", "postgres://app:s3cr$t@db/x", ""},
		{"${HOST:-localhost}:${PORT:-5432}", "localhost:5432", ""},
		{"${EMPTY:-fallback}", "fallback", ""},
		{"pa$$word", "pa$$word", ""},
		{"${MISSING}", "", "MISSING"},
		{"${1BAD}", "", "not a variable reference"},
		{"${OPEN", "", "unterminated"},
	}
	for _, tt := range tests {
		got, err := expandEnv(tt.in, env)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expandEnv(%q) = %q, %v; want an error containing %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("expandEnv(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestMask(t *testing.T) {
	tests := []struct {
		driver, dsn, want string
	}{
		{"postgres", "postgres://app:hunter2@db:5432/orders?sslmode=disable", "postgres://app:xxxxx@db:5432/orders?sslmode=disable"},
		{"postgres", "host=db user=app password='hun ter2' dbname=x", "host=db user=app password=xxxxx dbname=x"},
		{"postgres", "postgres://db/x?user=app&password=hunter2", "postgres://db/x?user=app&password=xxxxx"},
		{"postgres", "${WAREHOUSE_DSN}", "${WAREHOUSE_DSN}"},
		{"mysql", "app:hun@ter2@tcp(db:3306)/orders?parseTime=true", "app:xxxxx@tcp(db:3306)/orders?parseTime=true"},
		{"mysql", "app@tcp(db:3306)/orders", "app@tcp(db:3306)/orders"},
	}
	for _, tt := range tests {
		if got := mask(tt.dsn, tt.driver); got != tt.want {
			t.Errorf("mask(%q) = %q, want %q", tt.dsn, got, tt.want)
		}
	}
}

func TestSQLitePath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	tests := map[string]string{
		"data/orders.db":       "/etc/hermes/tools/data/orders.db",
		"/var/db/x.db":         "/var/db/x.db",
		"~/x.db":               filepath.Join(home, "x.db"),
		"file:./y.db?mode=rwc": "/etc/hermes/tools/y.db",
	}
	for in, want := range tests {
		if got, err := sqlitePath(in, "/etc/hermes/tools"); err != nil || got != want {
			t.Errorf("sqlitePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := sqlitePath(":memory:", "/"); err == nil {
		t.Error("sqlitePath(:memory:) succeeded; want an error asking for a file")
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		c       Connection
		env     map[string]string
		wantErr string
	}{
		{"unset variable", Connection{Driver: "postgres", DSN: "${WAREHOUSE_DSN}"}, nil, "WAREHOUSE_DSN"},
		{"unknown driver", Connection{Driver: "oracle", DSN: "x"}, nil, "oracle"},
		{"empty dsn", Connection{Driver: "sqlite"}, nil, "dsn is empty"},
		{"negative max_open", Connection{Driver: "sqlite", DSN: "x.db", MaxOpen: -1}, nil, "max_open"},
		{"bad postgres dsn", Connection{Driver: "pg", DSN: "postgres://app:${PW}@db:notaport/x"}, map[string]string{"PW": "hunter2"}, "postgres connection postgres://app:xxxxx@db:notaport/x"},
		{"bad mysql dsn", Connection{Driver: "mysql", DSN: "app:${PW}@tcp(db:3306"}, map[string]string{"PW": "hunter2"}, "mysql connection app:xxxxx@tcp(db:3306"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.c, t.TempDir(), envOf(tt.env))
			if err == nil {
				db.Close()
				t.Fatalf("Open succeeded; want an error containing %q", tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Open = %v; want it to contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Open = %v; it shows the password", err)
			}
		})
	}
}

func TestOpenMySQLResolvesDSNWithoutConnecting(t *testing.T) {
	c := Connection{Driver: "mysql", DSN: "${DB_USER:-app}:${DB_PASSWORD}@tcp(${DB_HOST}:3306)/orders?parseTime=true"}
	db, err := Open(context.Background(), c, "", envOf(map[string]string{"DB_PASSWORD": "hunter2", "DB_HOST": "db.invalid"}))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	if db.Driver() != "mysql" {
		t.Errorf("Driver() = %q, want mysql", db.Driver())
	}
	if s := db.String(); s != "mysql connection ${DB_USER:-app}:xxxxx@tcp(${DB_HOST}:3306)/orders?parseTime=true" {
		t.Errorf("String() = %q; want the DSN as written, without the password", s)
	}
}

// A password-bearing DSN pointing at a port nobody listens on: the
// failure is upstream_unavailable and retryable, and its message names
// the connection without the password.
func TestConnectionFailureHidesPassword(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	for _, c := range []Connection{
		{Driver: "postgres", DSN: "postgres://app:${PW}@127.0.0.1:" + itoa(port) + "/orders?sslmode=disable&connect_timeout=2"},
		{Driver: "mysql", DSN: "app:${PW}@tcp(127.0.0.1:" + itoa(port) + ")/orders?timeout=2s"},
	} {
		t.Run(c.Driver, func(t *testing.T) {
			db, err := Open(context.Background(), c, "", envOf(map[string]string{"PW": "hunter2-s3cret"}))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err = db.Run(ctx, Query{ReadOnly: true}, nil, "SELECT 1")
			te, ok := tool.AsError(err)
			if !ok {
				t.Fatalf("Run = %v; want a *tool.Error", err)
			}
			if te.Code != tool.CodeUpstreamUnavailable || !te.Retryable {
				t.Errorf("Run = %+v; want upstream_unavailable, retryable", te)
			}
			if strings.Contains(te.Message, "hunter2") {
				t.Errorf("message %q shows the password", te.Message)
			}
			if !strings.Contains(te.Message, c.Driver+" connection") {
				t.Errorf("message %q does not name the connection", te.Message)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
