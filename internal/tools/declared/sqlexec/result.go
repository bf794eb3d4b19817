package sqlexec

import (
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Result is what a statement gave, shaped for the model. Rows are arrays
// in the order of Columns rather than objects: a result is usually a
// table, and repeating every column name in every row would spend the
// model's context on keys. Values are JSON-ready: text as strings, binary
// that is not UTF-8 as base64, times in RFC 3339, NULL as null and numbers
// as numbers (exact decimals too, as JSON number literals).
type Result struct {
	Columns []string `json:"columns,omitempty"`
	Rows    [][]any  `json:"rows,omitempty"`
	// RowCount is the number of rows in Rows.
	RowCount int `json:"row_count"`
	// Truncated says the statement had more rows than max_rows; only the
	// first max_rows are in Rows.
	Truncated bool `json:"truncated,omitempty"`
	// Note tells the model what to do about a truncated result.
	Note string `json:"note,omitempty"`
	// RowsAffected is set for statements that return no rows (INSERT,
	// UPDATE, DELETE, DDL).
	RowsAffected *int64 `json:"rows_affected,omitempty"`
}

// collect reads up to maxRows rows, and one more to learn whether there
// were more; it leaves closing rows to the caller.
func collect(rows *sql.Rows, maxRows int) (*Result, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	kinds := make([]string, len(types))
	for i, t := range types {
		kinds[i] = strings.ToUpper(t.DatabaseTypeName())
	}
	res := &Result{Columns: cols, Rows: [][]any{}}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if len(res.Rows) == maxRows {
			res.Truncated = true
			res.Note = fmt.Sprintf("only the first %d rows are shown; add a WHERE, a LIMIT or an aggregate to see the rest", maxRows)
			return res, nil
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			row[i] = jsonValue(v, kinds[i])
		}
		res.Rows = append(res.Rows, row)
		res.RowCount++
	}
	return res, rows.Err()
}

// numericType reports the database type names whose values some drivers
// hand over as text (MySQL's text protocol, PostgreSQL's NUMERIC) but
// which the model should see as numbers.
func numericType(kind string) bool {
	switch kind {
	case "NUMERIC", "DECIMAL", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT",
		"MEDIUMINT", "FLOAT", "DOUBLE", "REAL", "UNSIGNED INT", "UNSIGNED BIGINT",
		"UNSIGNED SMALLINT", "UNSIGNED TINYINT", "UNSIGNED MEDIUMINT", "INT2", "INT4",
		"INT8", "FLOAT4", "FLOAT8", "YEAR":
		return true
	}
	return false
}

// jsonValue converts a scanned value to one that marshals well. kind is
// the column's database type name, upper-cased.
func jsonValue(v any, kind string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return textValue(string(x), kind, true)
	case string:
		return textValue(x, kind, false)
	case time.Time:
		return timeValue(x, kind)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
		return x
	case float32:
		return jsonValue(float64(x), kind)
	case int64, int32, int16, int8, int, uint64, uint32, uint16, uint8, uint, bool, json.Number:
		return x
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// timeValue is a time as text: a date column as YYYY-MM-DD, PostgreSQL's
// time and timetz (which lib/pq dates on 1 January of year 0) as a clock
// time, anything else in RFC 3339.
func timeValue(t time.Time, kind string) string {
	clock := t.Year() == 0 && t.YearDay() == 1
	switch {
	case kind == "DATE":
		return t.Format(time.DateOnly)
	case kind == "TIME" && clock:
		return t.Format("15:04:05.999999999")
	case kind == "TIMETZ" && clock:
		return t.Format("15:04:05.999999999Z07:00")
	}
	return t.Format(time.RFC3339Nano)
}

// textValue is a textual value as JSON: a number for numeric columns, the
// document itself for JSON columns, a JSON array for PostgreSQL arrays of
// simple elements (type names like _INT4, lib/pq's spelling), a string
// otherwise, and base64 for bytes that are not UTF-8.
func textValue(s, kind string, raw bool) any {
	switch {
	case numericType(kind) && isJSONNumber(s):
		return json.Number(s)
	case (kind == "JSON" || kind == "JSONB") && json.Valid([]byte(s)):
		return json.RawMessage(s)
	case strings.HasPrefix(kind, "_"):
		if a, ok := pgArray(s, kind[1:]); ok {
			return a
		}
	case raw && !utf8.ValidString(s):
		return base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s
}

// isJSONNumber reports whether s is a JSON number literal ("1.50" is;
// "NaN", "1e" and " 1" are not).
func isJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}
