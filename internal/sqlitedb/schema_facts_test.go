package sqlitedb

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// Version 6 moves the facts' vectors out of their rows into fact_vectors,
// model and all, drops the old columns, and deletes a fact's vector with
// the fact.
func TestFactVectorsMigrate(t *testing.T) {
	conn, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "v5.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := t.Context()
	steps := append([]string{}, factMigrations[:5]...)
	steps = append(steps,
		`INSERT INTO facts (id, kind, content, norm, created_at, embedding, embed_model) VALUES (1, 'fact', 'a', 'a', 0, x'0000803f00000000', 'local/m')`,
		`INSERT INTO facts (id, kind, content, norm, created_at) VALUES (2, 'fact', 'b', 'b', 0)`,
		factMigrations[5])
	for _, q := range steps {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	var (
		id    int
		model string
		blob  []byte
	)
	if err := conn.QueryRowContext(ctx, `SELECT fact_id, model, vector FROM fact_vectors`).Scan(&id, &model, &blob); err != nil || id != 1 || model != "local/m" || len(blob) != 8 {
		t.Fatalf("fact_vectors: fact %d, model %q, %d bytes, %v", id, model, len(blob), err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT embedding FROM facts`); err == nil {
		t.Error("facts still has its embedding column")
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM facts WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM fact_vectors`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d vectors left after their fact was deleted (%v)", n, err)
	}
}
