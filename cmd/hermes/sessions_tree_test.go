package main

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/session"
)

// A compressed conversation's child sessions follow their parent, oldest
// first and indented; a session whose parent is not listed keeps its
// place; a cycle in stored parents shows each session once.
func TestSessionTree(t *testing.T) {
	ss := func(pairs ...string) []session.Session {
		var out []session.Session
		for _, p := range pairs {
			id, parent, _ := strings.Cut(p, "<")
			out = append(out, session.Session{ID: id, ParentID: parent})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   []session.Session
		want string
	}{
		{"chain", ss("c2<c1", "x", "c1<p", "p"), "x p └c1 └└c2"},
		{"siblings oldest first", ss("k2<p", "k1<p", "p"), "p └k1 └k2"},
		{"parent not listed", ss("c<gone", "p"), "c p"},
		{"cycle", ss("a<b", "b<a"), "a └b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, r := range sessionTree(tc.in) {
				got = append(got, strings.Repeat("└", r.depth)+r.s.ID)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
	if treePrefix(0) != "" || treePrefix(2) != "  └ " {
		t.Errorf("prefixes %q %q", treePrefix(0), treePrefix(2))
	}
}
