package markdown

import (
	"os"
	"strings"
	"testing"
)

// TestStreamingPrefixesStable renders every prefix of a long reply, as the
// terminal UI does while tokens arrive, and checks that no prefix panics and
// that every block the prefix has closed renders exactly as it does in the
// whole reply: only the last, still growing block may change, so the screen
// above it never jumps.
func TestStreamingPrefixesStable(t *testing.T) {
	src := readReply(t)
	for _, width := range []int{40, 80} {
		rr := New(DefaultStyle())
		full := rr.blocks(src, width)
		for n := 0; n <= len(src); n++ {
			blocks := rr.blocks(src[:n], width)
			if len(blocks) > len(full) {
				t.Fatalf("width %d, prefix %d: %d blocks, the whole reply has %d", width, n, len(blocks), len(full))
			}
			for i := 0; i+1 < len(blocks); i++ {
				if blocks[i] != full[i] {
					t.Fatalf("width %d, prefix %d (…%q): closed block %d renders\n%s\nbut in the whole reply\n%s",
						width, n, src[max(0, n-30):n], i, blocks[i], full[i])
				}
			}
			out := rr.Render(src[:n], width)
			if closed := strings.Join(blocks[:max(len(blocks)-1, 0)], "\n\n"); !strings.HasPrefix(out, closed) {
				t.Fatalf("width %d, prefix %d: Render does not begin with the closed blocks", width, n)
			}
		}
	}
}

// TestUnterminatedFenceRendersAsCode checks that a code block still
// streaming is drawn as code, not as paragraphs that turn into code when
// the closing fence arrives.
func TestUnterminatedFenceRendersAsCode(t *testing.T) {
	open := "Here:\n\n```go\nfunc f() {\n\t// *not emphasis*\n\treturn"
	closed := open + "\n}\n```\n"
	got := Render(open, 80, NoColor())
	want := Render(closed, 80, NoColor())
	if !strings.HasPrefix(want, got) {
		t.Fatalf("the open fence renders\n%s\nwhich is not the start of the closed one\n%s", got, want)
	}
	if !strings.Contains(got, "  // *not emphasis*") {
		t.Fatalf("the open fence's lines are not drawn as code:\n%s", got)
	}
}

// BenchmarkRender4KB renders a 4 KB reply at 80 columns with color, as
// the terminal UI does on each token: with a Renderer it keeps.
func BenchmarkRender4KB(b *testing.B) {
	src := reply4KB(b)
	rr := New(DefaultStyle())
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		rr.Render(src, 80)
		rr.cache = streamCache{} // a whole render every time
	}
}

// BenchmarkStreamToken4KB renders a 4 KB reply one token (four bytes) at a
// time into one Renderer, as the terminal UI does while a reply streams;
// each op is one token's render with the closed blocks reused.
func BenchmarkStreamToken4KB(b *testing.B) {
	src := reply4KB(b)
	rr := New(DefaultStyle())
	n := len(src) / 2
	b.ReportAllocs()
	for b.Loop() {
		n += 4
		if n > len(src) {
			n = len(src) / 2
			rr = New(DefaultStyle())
		}
		rr.Render(src[:n], 80)
	}
}

// BenchmarkRender4KBOnce renders the same reply with the package's Render,
// which sets up a parser each call.
func BenchmarkRender4KBOnce(b *testing.B) {
	src := reply4KB(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Render(src, 80, DefaultStyle())
	}
}

// readReply returns testdata/reply.md, a realistic long answer.
func readReply(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/reply.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// reply4KB returns the long reply followed by the list and table examples,
// cut to 4096 bytes.
func reply4KB(t testing.TB) string {
	t.Helper()
	src := readReply(t)
	for _, f := range []string{"testdata/lists.md", "testdata/tables.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src += "\n" + string(b)
	}
	return src[:4096]
}
