package shell

import (
	"reflect"
	"testing"
)

func TestWrites(t *testing.T) {
	o := Options{Dir: "/work/Proj", Home: "/home/ada"}
	here := []string{"/work/proj"}
	cases := []struct {
		cmd  string
		want []Write
		ok   bool
	}{
		{"ls -la", nil, true},
		{"echo hi > Notes.md", []Write{{"Notes.md", here}}, true},
		// sed's script counts as an operand (the rules protect every
		// operand); a caller finds no such file and keeps nothing.
		{"sed -i 's/a/b/' src/Main.go README.md", []Write{{"s/a/b/", here}, {"src/Main.go", here}, {"README.md", here}}, true},
		{"cd Sub && printf x >> Log.txt", []Write{{"Log.txt", []string{"/work/proj/sub"}}}, true},
		{"cp A.txt /tmp/B.txt; mv Old.txt New.txt", []Write{{"/tmp/B.txt", nil}, {"New.txt", here}, {"Old.txt", here}}, true},
		{"rm -rf Build ~/Cache", []Write{{"Build", here}, {"~/Cache", nil}}, true},
		{`bash -c "tee Out.log < in"`, []Write{{"Out.log", here}}, true},
		{"curl -o Page.html https://example.com", []Write{{"Page.html", here}}, true},
		{"echo x > $OUT", nil, false},
		{"rm *.tmp", nil, false},
		{"cmd 2>&1 > /dev/null | tee -", nil, true},
	}
	for _, c := range cases {
		got, ok := o.Writes(c.cmd)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Writes(%q) = %v, %v; want %v, %v", c.cmd, got, ok, c.want, c.ok)
		}
	}
}

// BenchmarkWrites is what finding a command's written files adds to
// each terminal call when checkpoints are on.
func BenchmarkWrites(b *testing.B) {
	o := Options{Dir: "/work/proj", Home: "/home/ada"}
	cmd := `cd src && sed -i 's/old/new/g' main.go util.go && go build ./... 2>&1 | tee build.log > /dev/null && rm -rf ../dist`
	for b.Loop() {
		if ws, _ := o.Writes(cmd); len(ws) == 0 {
			b.Fatal("no writes found")
		}
	}
}
