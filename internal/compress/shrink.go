package compress

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxArgumentChars is the size past which an old tool call's arguments are
// shrunk in phase 1.
const MaxArgumentChars = 2000

// shrinkArguments returns args cut to about limit characters while staying
// valid JSON: string values are cut, longest allowance first, with a marker
// saying how much was removed; keys, numbers and structure are kept in
// their order. Arguments that are not JSON become an object holding their
// beginning.
func shrinkArguments(args string, limit int) string {
	if len(args) <= limit {
		return args
	}
	var out string
	for _, keep := range []int{500, 200, 60, 0} {
		s, err := cutStrings(args, keep)
		if err != nil {
			head := []rune(args)
			if len(head) > 200 {
				head = head[:200]
			}
			b, _ := marshal(map[string]string{
				"truncated_arguments": string(head) + fmt.Sprintf("…[cut, %d chars in all, not valid JSON]", utf8.RuneCountInString(args)),
			})
			return string(b)
		}
		out = s
		if len(out) <= limit {
			break
		}
	}
	return out
}

// cutStrings rewrites the JSON value in s with every string value longer
// than keep runes cut to keep runes and a marker. Object keys are kept.
func cutStrings(s string, keep int) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	type frame struct {
		obj bool
		n   int // keys and values written so far
	}
	var (
		b     bytes.Buffer
		stack []frame
		done  bool
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		if done {
			return "", errors.New("more than one JSON value")
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			b.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				done = true
			} else {
				stack[len(stack)-1].n++
			}
			continue
		}
		isKey := false
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			switch {
			case top.obj && top.n%2 == 1:
				b.WriteByte(':')
			case top.n > 0:
				b.WriteByte(',')
			}
			isKey = top.obj && top.n%2 == 0
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteByte(byte(v))
			stack = append(stack, frame{obj: v == '{'})
			continue
		case string:
			if !isKey && utf8.RuneCountInString(v) > keep {
				r := []rune(v)
				v = string(r[:keep]) + fmt.Sprintf("…[cut %d chars]", len(r)-keep)
			}
			q, err := marshal(v)
			if err != nil {
				return "", err
			}
			b.Write(q)
		case json.Number:
			b.WriteString(v.String())
		case bool:
			fmt.Fprint(&b, v)
		case nil:
			b.WriteString("null")
		}
		if len(stack) == 0 {
			done = true
		} else {
			stack[len(stack)-1].n++
		}
	}
	if !done || !json.Valid(b.Bytes()) {
		return "", errors.New("not a complete JSON value")
	}
	return b.String(), nil
}

// marshal encodes v as JSON without HTML escaping, as tool envelopes are.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
