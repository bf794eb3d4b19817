package storage

import (
	"reflect"
	"testing"
)

// TestKeyRoundTrip keeps every key SQLite can hold exactly, invalid
// UTF-8 and NUL bytes included, so a resumed migration continues after
// the very row it stopped at.
func TestKeyRoundTrip(t *testing.T) {
	for _, key := range [][]any{
		{int64(-1)},
		{int64(9007199254740993)},
		{"2026-12-04", "用户", "a\xff\x00b", ""},
		{[]byte{0, 1, 0xff}, 1.5, nil},
	} {
		got, err := decodeKey(encodeKey(key))
		if err != nil || !reflect.DeepEqual(got, key) {
			t.Errorf("key %#v came back as %#v (%v)", key, got, err)
		}
	}
	for _, bad := range []string{`["q1"]`, `[""]`, `{`, `["sno base64"]`} {
		if _, err := decodeKey(bad); err == nil {
			t.Errorf("decodeKey(%s) did not fail", bad)
		}
	}
}
