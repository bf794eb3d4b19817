package storage

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// sanitize is s as PostgreSQL's text accepts it: invalid UTF-8 and NUL
// bytes become U+FFFD, as session/postgres stores them. changed reports
// whether anything was replaced.
func sanitize(s string) (out string, changed bool) {
	out = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
	return out, out != s
}

// convert is a value, as SQLite or PostgreSQL gave it, in the canonical
// Go form of the destination column's type: string for text, int64 for
// integers, float64 for floating point, bool, []byte for bytea. NULL
// into a NOT NULL column becomes the type's zero value (SQLite's
// session tables leave optional text NULL where PostgreSQL's keep an empty string).
// sanitized reports that text was changed to be valid for PostgreSQL.
// Reading a value back from PostgreSQL through convert gives it again,
// which is what lets both sides' checksums be compared.
func convert(v any, typ string, notNull bool) (out any, sanitized bool, err error) {
	if v == nil {
		if !notNull {
			return nil, false, nil
		}
		v = zero(typ)
	}
	if t, ok := v.(time.Time); ok {
		v = t.UTC().Format(time.RFC3339Nano)
	}
	switch typ {
	case "text", "character varying", "character", "json", "jsonb":
		s, changed := sanitize(asString(v))
		return s, changed, nil
	case "bigint", "integer", "smallint":
		switch v := v.(type) {
		case int64:
			return v, false, nil
		case float64:
			if v == math.Trunc(v) {
				return int64(v), false, nil
			}
		case bool:
			return int64(b2i(v)), false, nil
		case string, []byte:
			if n, err := strconv.ParseInt(strings.TrimSpace(asString(v)), 10, 64); err == nil {
				return n, false, nil
			}
		}
	case "double precision", "real", "numeric":
		switch v := v.(type) {
		case float64:
			return v, false, nil
		case int64:
			return float64(v), false, nil
		case string, []byte:
			if f, err := strconv.ParseFloat(strings.TrimSpace(asString(v)), 64); err == nil {
				return f, false, nil
			}
		}
	case "boolean":
		switch v := v.(type) {
		case bool:
			return v, false, nil
		case int64:
			return v != 0, false, nil
		}
	case "bytea":
		switch v := v.(type) {
		case []byte:
			return v, false, nil
		case string:
			return []byte(v), false, nil
		}
	default:
		return v, false, nil
	}
	return nil, false, fmt.Errorf("value %.40q does not fit a %s column", asString(v), typ)
}

// zero is the zero value of a column type.
func zero(typ string) any {
	switch typ {
	case "bigint", "integer", "smallint":
		return int64(0)
	case "double precision", "real", "numeric":
		return float64(0)
	case "boolean":
		return false
	case "bytea":
		return []byte{}
	}
	return ""
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checksum adds up rows' hashes: a sum does not depend on the order
// rows come in, so neither side needs to sort them the way the other
// does (SQLite's and PostgreSQL's orders of text differ with
// collations), while a missing, changed or extra row changes it.
type checksum struct {
	rows int64
	sum  [4]uint64
	buf  []byte
}

// add adds a row of canonical values (convert's forms).
func (c *checksum) add(row []any) {
	b := c.buf[:0]
	for _, v := range row {
		switch v := v.(type) {
		case nil:
			b = append(b, 'n')
		case string:
			b = append(b, 's')
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		case []byte:
			b = append(b, 'x')
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		case int64:
			b = binary.BigEndian.AppendUint64(append(b, 'i'), uint64(v))
		case float64:
			b = binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(v))
		case bool:
			b = append(b, 'b', byte(b2i(v)))
		default:
			b = append(b, 'o')
			s := fmt.Sprint(v)
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	c.buf = b
	h := sha256.Sum256(b)
	var carry uint64
	for i := 3; i >= 0; i-- {
		c.sum[i], carry = bits.Add64(c.sum[i], binary.BigEndian.Uint64(h[i*8:]), carry)
	}
	c.rows++
}

// result is the count and the sum in hex.
func (c *checksum) result() Sum {
	var b [32]byte
	for i, v := range c.sum {
		binary.BigEndian.PutUint64(b[i*8:], v)
	}
	return Sum{Rows: c.rows, Checksum: hex.EncodeToString(b[:12])}
}
