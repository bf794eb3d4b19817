package kb

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/sqldb"
)

// VectorExtension reports whether the database could hold the vectors
// in pgvector: PostgreSQL with the "vector" extension available to
// CREATE EXTENSION (installed or not yet). The knowledge base does not
// use it: vectors are bytea scored exactly in Go, with the IVF cells,
// on both backends. It is for hermes doctor to say whether an index
// inside the database would be possible; SQLite reports false.
func (k *KB) VectorExtension(ctx context.Context) (bool, error) {
	if k.db.Dialect() != sqldb.Postgres {
		return false, nil
	}
	var ok bool
	err := k.db.Reader().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look for the pgvector extension: %w", err)
	}
	return ok, nil
}
