package pgtest

import (
	"context"
	"database/sql"
	"testing"
)

func TestStartServesADatabase(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	db, err := sql.Open("postgres", s.DSN())
	if err != nil {
		t.Fatalf("open %s: %v", s.DSN(), err)
	}
	defer db.Close()
	var name, zone string
	if err := db.QueryRowContext(ctx, "SELECT current_database(), current_setting('TimeZone')").Scan(&name, &zone); err != nil {
		t.Fatalf("query %s: %v", s.DSN(), err)
	}
	if name != database {
		t.Errorf("current_database() = %q, want %q", name, database)
	}
	if zone != "UTC" {
		t.Errorf("TimeZone = %q, want UTC", zone)
	}
}
