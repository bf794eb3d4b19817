package sqlitedb

import "context"

// SchemaVersion is one schema of state.db: the version the file holds
// and the one this program brings it to.
type SchemaVersion struct {
	Name       string
	Have, Want int
}

// SchemaVersions reads the version of every schema of the file, for
// hermes storage check: after Open they are all current unless the file
// was changed behind its back.
func (db *DB) SchemaVersions(ctx context.Context) ([]SchemaVersion, error) {
	out := make([]SchemaVersion, 0, len(schemas))
	for _, s := range schemas {
		v, err := s.version(ctx, db.read)
		if err != nil {
			return nil, err
		}
		out = append(out, SchemaVersion{Name: s.name, Have: v, Want: len(s.migrations)})
	}
	return out, nil
}
