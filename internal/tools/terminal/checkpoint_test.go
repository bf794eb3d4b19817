package terminal

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/internal/safety/shell"
)

// TestLocalPaths checks that the files a command names are found on disk
// in their letter case, though the analysis reads directories lower
// case, and that only what lies under the working directory is kept.
func TestLocalPaths(t *testing.T) {
	base := t.TempDir()
	work := filepath.Join(base, "Work")
	if err := os.MkdirAll(filepath.Join(work, "Src", "Lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "Home")
	cases := []struct {
		cmd  string
		want []string
	}{
		{"cd Src/Lib && echo x > Main.go", []string{filepath.Join(work, "Src", "Lib", "Main.go")}},
		{"echo x > Src/New.txt", []string{filepath.Join(work, "Src", "New.txt")}},
		{"echo x > ~/notes.txt", []string{filepath.Join(home, "notes.txt")}},
		{"cd Nowhere && echo x > a.txt", nil},
	}
	for _, c := range cases {
		ws, _ := shell.Options{Dir: work, Home: home}.Writes(c.cmd)
		var got []string
		for _, w := range ws {
			got = append(got, localPaths(w, home)...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.cmd, got, c.want)
		}
	}
}
