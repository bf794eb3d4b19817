package tool

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestPlanDependencies(t *testing.T) {
	mk := func(name string, ro bool, cl class, path string) *job {
		return &job{name: name, class: cl, path: path, entry: &entry{spec: Spec{Name: name, ParallelSafe: ro}}}
	}
	jobs := []*job{
		mk("read", true, classParallel, ""),        // 0
		mk("write", false, classPath, "/w/a"),      // 1
		mk("read_file", true, classPath, "/w/a/x"), // 2: overlaps 1
		mk("read_file", true, classPath, "/w/a/x"), // 3: overlaps 1; both reads with 2
		mk("write", false, classPath, "/w/b"),      // 4
		{early: &Result{}},                         // 5: never runs
		mk("shell", false, classBarrier, ""),       // 6
		mk("read", true, classParallel, ""),        // 7
		mk("write", false, classPath, "/w/a"),      // 8: after the barrier only
	}
	plan(jobs)
	want := [][]int{nil, nil, {1}, {1}, nil, nil, {0, 1, 2, 3, 4}, {6}, {6}}
	for i, j := range jobs {
		if fmt.Sprint(j.deps) != fmt.Sprint(want[i]) {
			t.Errorf("job %d deps %v, want %v", i, j.deps, want[i])
		}
	}
}

func TestClassify(t *testing.T) {
	path := Spec{Name: "w", PathArg: "path"}
	tests := []struct {
		spec      Spec
		args, wd  string
		wantClass class
		wantPath  string
	}{
		{Spec{ParallelSafe: true}, `{}`, "", classParallel, ""},
		{Spec{}, `{}`, "", classBarrier, ""},
		{path, `{"path":"x/../y.txt"}`, "/w", classPath, "/w/y.txt"},
		{path, `{"path":"/abs/./f"}`, "/w", classPath, "/abs/f"},
		{path, `{"path":"rel"}`, "", classPath, "rel"},
		{path, `{"path":"~/notes"}`, "/w", classBarrier, ""},
		{path, `{"path":""}`, "/w", classBarrier, ""},
		{path, `{"path":7}`, "/w", classBarrier, ""},
		{path, `{}`, "/w", classBarrier, ""},
	}
	for _, tt := range tests {
		cl, p := classify(tt.spec, json.RawMessage(tt.args), tt.wd)
		if cl != tt.wantClass || p != tt.wantPath {
			t.Errorf("classify(%s, %s) = %d %q, want %d %q", tt.spec.Name, tt.args, cl, p, tt.wantClass, tt.wantPath)
		}
	}
}

func TestOverlaps(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"/w/a", "/w/a", true},
		{"/w/a", "/w/a/b.txt", true},
		{"/w/a/b.txt", "/w/a", true},
		{"/w/a", "/w/ab", false},
		{"/w/a", "/w/b", false},
		{"/", "/anything", true},
		{"/", "relative", false},
		{"rel/a", "rel/a/b", true},
	}
	for _, tt := range tests {
		if got := overlaps(tt.a, tt.b); got != tt.want {
			t.Errorf("overlaps(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
