package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestGolden renders every testdata/*.md at 40 and 80 columns, with and
// without color, and compares with the .golden files. The color goldens
// show ESC as \e so that a review can read them; run with -update to
// rewrite them after an intended change.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.md: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		base := strings.TrimSuffix(f, ".md")
		for _, width := range []int{40, 80} {
			for _, color := range []bool{false, true} {
				name := base + ".w" + strconv.Itoa(width)
				style := NoColor()
				if color {
					name += ".color"
					style = DefaultStyle()
				}
				name += ".golden"
				got := Render(string(src), width, style)
				checkWidths(t, name, got, width)
				shown := strings.ReplaceAll(got, "\x1b", `\e`) + "\n"
				if *update {
					if err := os.WriteFile(name, []byte(shown), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(name)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if shown != string(want) {
					t.Errorf("%s differs from the render:\n%s", name, shown)
				}
			}
		}
	}
}

// checkWidths fails when a rendered line is wider than width columns.
func checkWidths(t *testing.T, name, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := StringWidth(l); w > width {
			t.Errorf("%s line %d is %d columns wide, over %d: %q", name, i+1, w, width, l)
		}
	}
}
