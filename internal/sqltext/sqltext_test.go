package sqltext

import (
	"testing"

	"github.com/hermes-go/hermes/internal/sqldb"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, sqlite, postgres string }{
		{"plain", "plain", "plain"},
		{"a\x00b", "a\x00b", "a\uFFFDb"},
		{"bad \xff\xfe utf-8", "bad \xff\xfe utf-8", "bad \uFFFD utf-8"},
		{"部署", "部署", "部署"},
	} {
		if got := Clean(sqldb.SQLite, tc.in); got != tc.sqlite {
			t.Errorf("Clean(SQLite, %q) = %q, want %q", tc.in, got, tc.sqlite)
		}
		if got := Clean(sqldb.Postgres, tc.in); got != tc.postgres {
			t.Errorf("Clean(Postgres, %q) = %q, want %q", tc.in, got, tc.postgres)
		}
	}
}

func TestContainsAndEscapeLike(t *testing.T) {
	if got := Contains(sqldb.SQLite, "c.text", "?"); got != "instr(c.text, ?) > 0" {
		t.Errorf("Contains(SQLite) = %q", got)
	}
	if got := Contains(sqldb.Postgres, "c.text", "?"); got != "strpos(c.text, ?) > 0" {
		t.Errorf("Contains(Postgres) = %q", got)
	}
	if got := EscapeLike(`50%_a\b`); got != `50\%\_a\\b` {
		t.Errorf("EscapeLike = %q", got)
	}
}
