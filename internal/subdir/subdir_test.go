package subdir

import "testing"

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		dir, path string
		want      bool
	}{
		{"/work", "/work", true},
		{"/work", "/work/a/b", true},
		{"/work", "/work/../etc", false},
		{"/work", "/workshop/x", false},
		{"/work", "/etc/passwd", false},
		{"/work", "/work/..hidden", true},
		{"", "/work", false},
		{"work", "work/a", true},
	} {
		if got := Within(c.dir, c.path); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.dir, c.path, got, c.want)
		}
	}
}
