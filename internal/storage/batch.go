package storage

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// row is a source row turned into the destination's columns.
type row struct {
	vals      []any
	sanitized bool
}

// readBatch reads up to n rows of t that follow the key after (all from
// the start when after is nil), in key order, converted to the
// destination's columns, and the key of the last one.
func readBatch(ctx context.Context, src *sql.DB, t *tablePlan, after []any, n int) ([]row, []any, error) {
	keyCols := []string{"rowid"}
	if !t.rowid {
		keyCols = make([]string, len(t.key))
		for i, k := range t.key {
			keyCols[i] = quote(k)
		}
	}
	cols := make([]string, len(t.srcCols))
	for i, c := range t.srcCols {
		cols[i] = quote(c)
	}
	q := "SELECT " + strings.Join(keyCols, ", ") + ", " + strings.Join(cols, ", ") + " FROM " + quote(t.name)
	args := after
	if after != nil {
		q += " WHERE (" + strings.Join(keyCols, ", ") + ") > (" + strings.Repeat("?, ", len(keyCols)-1) + "?)"
	}
	q += " ORDER BY " + strings.Join(keyCols, ", ") + " LIMIT ?"
	rows, err := src.QueryContext(ctx, q, append(args[:len(args):len(args)], n)...)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: read state.db table %s: %w", t.name, err)
	}
	defer rows.Close()
	var out []row
	var last []any
	for rows.Next() {
		raw := make([]any, len(keyCols)+len(cols))
		ptrs := make([]any, len(raw))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, fmt.Errorf("storage: read state.db table %s: %w", t.name, err)
		}
		last = raw[:len(keyCols)]
		r, err := t.convertRow(raw[len(keyCols):])
		if err != nil {
			return nil, nil, fmt.Errorf("storage: state.db table %s, row with key %s: %w", t.name, encodeKey(last), err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("storage: read state.db table %s: %w", t.name, err)
	}
	return out, last, nil
}

// convertRow turns a source row into the destination's columns.
func (t *tablePlan) convertRow(src []any) (row, error) {
	r := row{vals: make([]any, len(t.cols))}
	for i, c := range t.cols {
		v, sanitized, err := convert(c.from(src), c.typ, c.notNull)
		if err != nil {
			return r, fmt.Errorf("column %s: %w", c.name, err)
		}
		r.vals[i] = v
		r.sanitized = r.sanitized || sanitized
	}
	return r, nil
}

// maxParams is how many parameters PostgreSQL takes in one statement.
const maxParams = 65535

// inserter writes rows of one table with multi-row INSERTs.
type inserter struct {
	head    string
	perStmt int
	width   int
}

func newInserter(t *tablePlan) *inserter {
	cols := make([]string, len(t.cols))
	for i, c := range t.cols {
		cols[i] = quote(c.name)
	}
	head := "INSERT INTO " + quote(t.name) + " (" + strings.Join(cols, ", ") + ") "
	if t.overriding {
		head += "OVERRIDING SYSTEM VALUE "
	}
	return &inserter{head: head + "VALUES ", perStmt: maxParams / len(cols), width: len(cols)}
}

// insert writes rows in as few statements as PostgreSQL's parameter
// limit allows.
func (in *inserter) insert(ctx context.Context, tx *sql.Tx, rows []row) error {
	one := "(" + strings.Repeat("?, ", in.width-1) + "?)"
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), in.perStmt)]
		rows = rows[len(chunk):]
		var q strings.Builder
		q.WriteString(in.head)
		args := make([]any, 0, len(chunk)*in.width)
		for i, r := range chunk {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString(one)
			args = append(args, r.vals...)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// encodeKey is a row's key as storage_migration keeps it: each value
// with its type, text and blobs in base64, so resuming compares exactly
// the bytes SQLite holds.
func encodeKey(key []any) string {
	parts := make([]string, len(key))
	for i, v := range key {
		switch v := v.(type) {
		case nil:
			parts[i] = "n"
		case int64:
			parts[i] = "i" + strconv.FormatInt(v, 10)
		case float64:
			parts[i] = "f" + strconv.FormatFloat(v, 'g', -1, 64)
		case string:
			parts[i] = "s" + base64.StdEncoding.EncodeToString([]byte(v))
		case []byte:
			parts[i] = "x" + base64.StdEncoding.EncodeToString(v)
		default:
			parts[i] = "s" + base64.StdEncoding.EncodeToString([]byte(fmt.Sprint(v)))
		}
	}
	b, _ := json.Marshal(parts) // strings of ASCII always encode
	return string(b)
}

// decodeKey reverses encodeKey; "" is no key (the start).
func decodeKey(s string) ([]any, error) {
	if s == "" {
		return nil, nil
	}
	var parts []string
	if err := json.Unmarshal([]byte(s), &parts); err != nil {
		return nil, err
	}
	key := make([]any, len(parts))
	for i, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("empty key part in %s", s)
		}
		var err error
		switch body := p[1:]; p[0] {
		case 'n':
		case 'i':
			key[i], err = strconv.ParseInt(body, 10, 64)
		case 'f':
			key[i], err = strconv.ParseFloat(body, 64)
		case 's':
			var b []byte
			b, err = base64.StdEncoding.DecodeString(body)
			key[i] = string(b)
		case 'x':
			key[i], err = base64.StdEncoding.DecodeString(body)
		default:
			err = fmt.Errorf("unknown key part %q", p)
		}
		if err != nil {
			return nil, err
		}
	}
	return key, nil
}
