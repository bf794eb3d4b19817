package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct{ name, data, id string }

func readAll(t testing.TB, r io.Reader) ([]got, error) {
	t.Helper()
	rd := NewReader(r)
	var out []got
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, got{ev.Name, string(ev.Data), ev.ID})
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []got
	}{
		{"plain", "data: a\n\ndata: b\n\n", []got{{"", "a", ""}, {"", "b", ""}}},
		{"named events", "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n",
			[]got{{"message_start", "{}", ""}, {"ping", `{"type": "ping"}`, ""}}},
		{"comment lines ignored", ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: x\n\n", []got{{"", "x", ""}}},
		{"multi-line data joins with newline", "data: a\ndata: b\n\n", []got{{"", "a\nb", ""}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []got{{"", "a", ""}, {"", "b", ""}}},
		{"bare cr", "data: a\r\rdata: b\r\r", []got{{"", "a", ""}, {"", "b", ""}}},
		{"no space after colon", "data:{\"a\":1}\n\n", []got{{"", `{"a":1}`, ""}}},
		{"only one leading space dropped", "data:   padded  \n\n", []got{{"", "  padded  ", ""}}},
		{"leading whitespace before field", " data: x\n\n", []got{{"", "x", ""}}},
		{"no final blank line", "data: last", []got{{"", "last", ""}}},
		{"event name reset after dispatch", "event: error\ndata: 1\n\ndata: 2\n\n", []got{{"error", "1", ""}, {"", "2", ""}}},
		{"id kept", "id: 7\ndata: x\n\n", []got{{"", "x", "7"}}},
		{"field without colon", "data\n\n", []got{{"", "", ""}}},
		{"unknown field ignored", "retry: 10\nfoo: bar\ndata: x\n\n", []got{{"", "x", ""}}},
		{"blank lines only", "\n\n\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				out, err := readAll(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(out) != len(tt.want) {
					t.Fatalf("got %d events %q, want %d %q", len(out), out, len(tt.want), tt.want)
				}
				for i := range out {
					if out[i] != tt.want[i] {
						t.Errorf("event %d = %+v, want %+v", i, out[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	out, err := readAll(t, strings.NewReader("data: "+long+"\n\n"))
	if err != nil || len(out) != 1 || out[0].data != long {
		t.Fatalf("long line: err=%v events=%d", err, len(out))
	}
}

// endlessReader yields prefix, then repeats piece for ever, counting what
// was read.
type endlessReader struct {
	prefix, piece string
	read          int
}

func (e *endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		src := e.piece
		if e.read < len(e.prefix) {
			src = e.prefix[e.read:]
		} else {
			src = src[(e.read-len(e.prefix))%len(src):]
		}
		k := copy(p[n:], src)
		n += k
		e.read += k
	}
	return n, nil
}

// A server that never ends a line, or never ends an event, gets an error
// once the reader's limit is passed, not a reader that grows with it.
func TestReaderBoundsEndlessInput(t *testing.T) {
	const limit = 1 << 20
	for _, tt := range []struct{ name, prefix, piece string }{
		{"a line without a newline", "data: ", "abcdefgh"},
		{"an event without a blank line", "", "data: abcdefgh\n"},
		{"a line of carriage returns", "data: x", "\r"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &endlessReader{prefix: tt.prefix, piece: strings.ReplaceAll(strings.ReplaceAll(tt.piece, `\n`, "\n"), `\r`, "\r")}
			r := NewReaderLimit(in, limit)
			var err error
			for err == nil {
				_, err = r.Next()
				if in.read > 4*limit {
					t.Fatalf("read %d bytes without an error", in.read)
				}
			}
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1048576 bytes") {
				t.Errorf("err = %v, want ErrTooLarge naming the limit", err)
			}
		})
	}
}

func TestReaderTransportError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom))
	out, err := readAll(t, r)
	if len(out) != 1 || !errors.Is(err, boom) {
		t.Fatalf("events=%v err=%v, want one event then %v", out, err, boom)
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n", "event: x\ndata: {}\r\n\r\n", ": comment\n\ndata: [DONE]\n\n",
		"data: a\rdata: b\r\r", " data: x", "id: 1\ndata\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := readAll(t, strings.NewReader(in))
		if err != nil {
			t.Fatalf("unexpected error on in-memory input: %v", err)
		}
		// Reading byte by byte must give the same events.
		out2, _ := readAll(t, iotest.OneByteReader(strings.NewReader(in)))
		if len(out) != len(out2) {
			t.Fatalf("chunking changed the event count: %d vs %d", len(out), len(out2))
		}
		for i := range out {
			if out[i] != out2[i] {
				t.Fatalf("chunking changed event %d: %+v vs %+v", i, out[i], out2[i])
			}
		}
	})
}

// BenchmarkReader measures the raw event-splitting throughput that every
// adapter's parsing rests on.
func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hello "},"finish_reason":null}]}` + "\n\n")
		sb.WriteString(": keep-alive\n\n")
	}
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(strings.NewReader(body))
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
		}
	}
}
