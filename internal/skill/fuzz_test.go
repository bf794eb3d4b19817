package skill

import (
	"testing"
	"unicode/utf8"
)

// FuzzParse checks the parser never panics and that what it accepts obeys
// the rules it enforces.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: d\n---\nbody",
		"---\nname: a\ndescription: d\nplatforms: [linux]\nmetadata: {hermes: {tags: [x], category: c}}\n---\n",
		"---\r\nname: a\r\n---",
		"---\n---\n",
		"---\n: : :\n---\n",
		"---\nname: &a b\ndescription: *a\n---\n",
		"",
		"\ufeff---\nname: x\ndescription: y\n---",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sk, err := Parse("fuzz/SKILL.md", data)
		if err != nil {
			if sk != nil {
				t.Fatalf("skill and error both returned")
			}
			return
		}
		if CheckName(sk.Name) != nil {
			t.Fatalf("accepted bad name %q", sk.Name)
		}
		if sk.Description == "" || utf8.RuneCountInString(sk.Description) > MaxDescriptionChars {
			t.Fatalf("accepted bad description %q", sk.Description)
		}
		for _, p := range sk.Platforms {
			if !contains(knownPlatforms, p) {
				t.Fatalf("accepted platform %q", p)
			}
		}
	})
}
