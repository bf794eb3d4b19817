package team

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/clock"
)

func TestArtifactsKeptWithTheirTask(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		file := filepath.Join(t.TempDir(), "data.csv")
		if err := os.WriteFile(file, []byte("a,b\n1,2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		mustClaim(t, s, "search", "h")
		err := s.Complete(ctx, a.ID, "h", Result{Summary: "three things", Artifacts: []Artifact{
			{Name: "notes", Kind: KindText, Content: "hello"},
			{Name: "facts.json", Kind: KindJSON, Content: `{"n":3}`},
			{Name: "data", Kind: KindFile, Path: file},
		}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Artifacts(ctx, a.ID)
		if err != nil || len(got) != 3 {
			t.Fatalf("artifacts %+v, %v", got, err)
		}
		byName := map[string]Artifact{}
		for _, x := range got {
			byName[x.Name] = x
		}
		if x := byName["data"]; x.Kind != KindFile || x.Path != file || x.Size != 8 {
			t.Fatalf("file artifact %+v", x)
		}
		if x, err := s.Artifact(ctx, a.ID, "facts.json"); err != nil || x.Content != `{"n":3}` || x.Size != 7 || x.Task != a.ID {
			t.Fatalf("json artifact %+v, %v", x, err)
		}
		_, err = s.Artifact(ctx, a.ID, "missing")
		wantErr(t, err, ErrNotFound)
	})
}

// TestBadArtifactsRefused checks every malformed artifact is refused with
// its field, and that a refused result leaves the task claimed, with no
// artifact stored, to be completed or failed again.
func TestBadArtifactsRefused(t *testing.T) {
	each(t, func(t *testing.T, s *Store, clk *clock.Fake) {
		ctx := context.Background()
		r := mustRun(t, s)
		a := mustPost(t, s, r.ID, "search")
		mustClaim(t, s, "search", "h")
		dir := t.TempDir()
		cases := []struct {
			arts []Artifact
			want string
		}{
			{[]Artifact{{Name: "", Kind: KindText}}, `name ""`},
			{[]Artifact{{Name: "a\nb", Kind: KindText}}, "printable"},
			{[]Artifact{{Name: strings.Repeat("n", 201), Kind: KindText}}, "1 to 200"},
			{[]Artifact{{Name: "x", Kind: "blob"}}, `kind "blob" is not accepted; use text, json or file`},
			{[]Artifact{{Name: "x", Kind: KindJSON, Content: "{nope"}}, "not valid JSON"},
			{[]Artifact{{Name: "x", Kind: KindText, Content: strings.Repeat("a", MaxInlineBytes+1)}}, "file artifact"},
			{[]Artifact{{Name: "x", Kind: KindText, Path: "/etc/passwd"}}, "not path"},
			{[]Artifact{{Name: "x", Kind: KindFile, Path: "rel/path"}}, "absolute path"},
			{[]Artifact{{Name: "x", Kind: KindFile, Path: dir}}, "not a regular file"},
			{[]Artifact{{Name: "x", Kind: KindFile, Path: filepath.Join(dir, "none")}}, "no such file"},
			{[]Artifact{{Name: "x", Kind: KindFile, Path: "/x", Content: "c"}}, "not content"},
			{[]Artifact{{Name: "x", Kind: KindText}, {Name: "x", Kind: KindText}}, "given twice"},
		}
		for _, c := range cases {
			err := s.Complete(ctx, a.ID, "h", Result{Artifacts: c.arts})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%+v: err %v, want %q", c.arts[0].Name, err, c.want)
			}
		}
		mustState(t, s, a.ID, StateClaimed)
		if got, _ := s.Artifacts(ctx, a.ID); len(got) != 0 {
			t.Fatalf("refused results stored %d artifacts", len(got))
		}
	})
}
