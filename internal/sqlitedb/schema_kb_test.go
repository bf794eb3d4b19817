package sqlitedb

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// TestKBChunkIndexes: a chunk is found by its words in the unicode61
// index, a CJK chunk also by a trigram of it, and deleting the chunks
// leaves neither index holding them (FTS5's integrity check agrees).
func TestKBChunkIndexes(t *testing.T) {
	db, _ := openTemp(t)
	ctx := t.Context()
	err := db.WriteTx(ctx, "kb", func(tx *sql.Tx) error {
		for _, q := range []string{
			`INSERT INTO kb_bases (id, name, created_at) VALUES (1, 'docs', 0)`,
			`INSERT INTO kb_sources (id, kb, uri, kind) VALUES (1, 1, '/a.md', 'markdown')`,
			`INSERT INTO kb_chunks (source, ordinal, heading, text) VALUES (1, 0, 'Deploy', 'rolling restarts of the gateway')`,
			`INSERT INTO kb_chunks (source, ordinal, heading, text) VALUES (1, 1, '部署', '数据库迁移脚本在发布前运行')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func(table, match string) int {
		t.Helper()
		var n int
		if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE `+table+` MATCH ?`, match).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("kb_chunks_fts", `"restarts"`); n != 1 {
		t.Errorf("word match: %d rows, want 1", n)
	}
	if n := count("kb_chunks_fts_trigram", `"迁移脚"`); n != 1 {
		t.Errorf("trigram match: %d rows, want 1", n)
	}
	if n := count("kb_chunks_fts_trigram", `"gateway"`); n != 0 {
		t.Errorf("a chunk without CJK is in the trigram index: %d rows", n)
	}
	err = db.WriteTx(ctx, "kb", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM kb_chunks WHERE source = 1`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := count("kb_chunks_fts", `"restarts"`) + count("kb_chunks_fts_trigram", `"迁移脚"`); n != 0 {
		t.Errorf("deleted chunks still match: %d rows", n)
	}
	for _, table := range []string{"kb_chunks_fts", "kb_chunks_fts_trigram"} {
		if _, err := db.Writer().ExecContext(ctx, `INSERT INTO `+table+`(`+table+`) VALUES ('integrity-check')`); err != nil {
			t.Errorf("%s integrity-check: %v", table, err)
		}
	}
}

// TestIsCJKIsTheGlob: IsCJK agrees with the schema's GLOB on every
// character at the edges of its ranges and on some outside them.
func TestIsCJKIsTheGlob(t *testing.T) {
	db, _ := openTemp(t)
	var runes []rune
	for _, edge := range []rune{0x3000, 0x30ff, 0x3400, 0x4dbf, 0x4e00, 0x9fff, 0xac00, 0xd7af, 0xf900, 0xfaff, 0xff00, 0xffef} {
		runes = append(runes, edge-1, edge, edge+1)
	}
	runes = append(runes, 'a', 'é', 'я', 0x1100, 0x20000)
	for _, r := range runes {
		var glob bool
		if err := db.Reader().QueryRow(`SELECT ? GLOB `+cjkGlob, string(r)).Scan(&glob); err != nil {
			t.Fatal(err)
		}
		if IsCJK(r) != glob {
			t.Errorf("U+%04X: IsCJK %v, GLOB %v", r, IsCJK(r), glob)
		}
	}
}

// TestKBVectorsMigrate: a file whose vectors were a column of kb_chunks
// (version 1) keeps them in kb_vectors after version 2, with their
// length recorded, and deleting a chunk then deletes its vector.
func TestKBVectorsMigrate(t *testing.T) {
	conn, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "v1.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := t.Context()
	for _, q := range []string{
		kbMigrations[0],
		`INSERT INTO kb_bases (id, name, created_at) VALUES (1, 'docs', 0)`,
		`INSERT INTO kb_sources (id, kb, uri, kind) VALUES (1, 1, '/a.md', 'markdown')`,
		`INSERT INTO kb_chunks (id, source, ordinal, text, vector) VALUES (1, 1, 0, 'a', x'0000803f00000000')`,
		`INSERT INTO kb_chunks (id, source, ordinal, text) VALUES (2, 1, 1, 'b')`,
		kbMigrations[1],
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	var chunk, dims int
	var blob []byte
	if err := conn.QueryRowContext(ctx, `SELECT chunk, vector FROM kb_vectors`).Scan(&chunk, &blob); err != nil || chunk != 1 || len(blob) != 8 {
		t.Fatalf("kb_vectors: chunk %d, %d bytes, %v", chunk, len(blob), err)
	}
	if err := conn.QueryRowContext(ctx, `SELECT dims FROM kb_embedding`).Scan(&dims); err != nil || dims != 2 {
		t.Fatalf("kb_embedding.dims %d, %v", dims, err)
	}
	if _, err := conn.ExecContext(ctx, `SELECT vector FROM kb_chunks`); err == nil {
		t.Error("kb_chunks still has its vector column")
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM kb_chunks WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM kb_vectors`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d vectors left after their chunk was deleted (%v)", n, err)
	}
}
