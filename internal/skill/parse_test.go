package skill

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseGood(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Skill
	}{
		{"minimal", "---\nname: a\ndescription: Does a.\n---\nbody\n",
			Skill{Name: "a", Description: "Does a.", Body: "body\n"}},
		{"crlf and bom", "\ufeff---\r\nname: b.c_d-1\r\ndescription: x\r\n---\r\nbody",
			Skill{Name: "b.c_d-1", Description: "x", Body: "body"}},
		{"all fields", `---
name: k8s-rollout
description: Roll out a deployment.
version: 1.2
platforms: [linux, darwin]
license: MIT
metadata:
  author: someone
  hermes:
    tags: [k8s, deploy]
    category: devops
    requires_toolsets: [terminal]
    requires_tools: terminal
    fallback_for_toolsets: [kubernetes]
    fallback_for_tools: "kubectl_apply, kubectl_get"
---
# Body
`, Skill{
			Name: "k8s-rollout", Description: "Roll out a deployment.", Version: "1.2",
			Platforms: []string{"linux", "macos"}, Category: "devops", Tags: []string{"k8s", "deploy"},
			RequiresToolsets: []string{"terminal"}, RequiresTools: []string{"terminal"},
			FallbackForToolsets: []string{"kubernetes"}, FallbackForTools: []string{"kubectl_apply", "kubectl_get"},
			Body: "# Body\n",
		}},
		{"unquoted colon in description", "---\nname: csv\ndescription: Clean CSV files: fix encodings.\nversion: 1.0.0\n---\nb",
			Skill{Name: "csv", Description: "Clean CSV files: fix encodings.", Version: "1.0.0", Body: "b"}},
		{"empty body", "---\nname: e\ndescription: d\n---", Skill{Name: "e", Description: "d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse("x/SKILL.md", []byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			got.Extra, got.Path = nil, ""
			if !reflect.DeepEqual(*got, c.want) {
				t.Errorf("got %+v\nwant %+v", *got, c.want)
			}
		})
	}
}

func TestParseKeepsUnknownKeys(t *testing.T) {
	sk, err := Parse("f", []byte("---\nname: a\ndescription: d\nlicense: MIT\nallowed-tools: [Bash]\nmetadata: {author: me}\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sk.Extra["license"] != "MIT" || sk.Extra["allowed-tools"] == nil || sk.Extra["metadata"] == nil {
		t.Errorf("Extra = %v; want license, allowed-tools and metadata kept", sk.Extra)
	}
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("x", MaxDescriptionChars+1)
	cases := []struct {
		name, in string
		field    string   // for a *FieldError, the field named
		want     []string // fragments of the message
	}{
		{"empty file", "", "", []string{"file is empty"}},
		{"no front matter", "# title\n", "", []string{"first line", "---"}},
		{"unclosed", "---\nname: a\n", "", []string{"not closed"}},
		{"bad yaml", "---\nname: [a\n---\n", "", []string{"not valid YAML"}},
		{"empty front matter", "---\n---\n", "name", nil},
		{"missing name", "---\ndescription: d\n---\n", "name", []string{"missing"}},
		{"upper-case name", "---\nname: Deploy\ndescription: d\n---\n", "name", []string{`"Deploy"`, "lowercase"}},
		{"name with space", "---\nname: a b\ndescription: d\n---\n", "name", []string{`"a b"`}},
		{"name leading dash", "---\nname: -a\ndescription: d\n---\n", "name", []string{`"-a"`}},
		{"name too long", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", "name", []string{"at most 64"}},
		{"name not a string", "---\nname: [a]\ndescription: d\n---\n", "name", []string{"a list", "want a string"}},
		{"missing description", "---\nname: a\n---\n", "description", []string{"missing"}},
		{"long description", "---\nname: a\ndescription: " + long + "\n---\n", "description", []string{"1025 characters", "1024"}},
		{"description mapping", "---\nname: a\ndescription: {x: 1}\n---\n", "description", []string{"a mapping"}},
		{"bad platform", "---\nname: a\ndescription: d\nplatforms: [linux, beos]\n---\n", "platforms[1]", []string{`"beos"`, "linux, macos or windows"}},
		{"platforms mapping", "---\nname: a\ndescription: d\nplatforms: {a: 1}\n---\n", "platforms", []string{"list of strings"}},
		{"platform not string", "---\nname: a\ndescription: d\nplatforms: [1]\n---\n", "platforms[0]", []string{"want a string"}},
		{"version list", "---\nname: a\ndescription: d\nversion: [1]\n---\n", "version", []string{"a list"}},
		{"metadata list", "---\nname: a\ndescription: d\nmetadata: [1]\n---\n", "metadata", []string{"want a mapping"}},
		{"hermes scalar", "---\nname: a\ndescription: d\nmetadata: {hermes: x}\n---\n", "metadata.hermes", []string{`"x"`}},
		{"tags mapping", "---\nname: a\ndescription: d\nmetadata: {hermes: {tags: {a: b}}}\n---\n", "metadata.hermes.tags", nil},
		{"requires_tools number", "---\nname: a\ndescription: d\nmetadata: {hermes: {requires_tools: [1]}}\n---\n", "metadata.hermes.requires_tools[0]", nil},
		{"requires_toolsets", "---\nname: a\ndescription: d\nmetadata: {hermes: {requires_toolsets: 3}}\n---\n", "metadata.hermes.requires_toolsets", nil},
		{"fallback_for_toolsets", "---\nname: a\ndescription: d\nmetadata: {hermes: {fallback_for_toolsets: {}}}\n---\n", "metadata.hermes.fallback_for_toolsets", nil},
		{"fallback_for_tools", "---\nname: a\ndescription: d\nmetadata: {hermes: {fallback_for_tools: [[x]]}}\n---\n", "metadata.hermes.fallback_for_tools[0]", nil},
		{"bad category", "---\nname: a\ndescription: d\nmetadata: {hermes: {category: Dev Ops}}\n---\n", "metadata.hermes.category", []string{`"Dev Ops"`}},
		{"too large", "---\nname: a\ndescription: d\n---\n" + strings.Repeat("é", MaxSkillChars), "", []string{"characters", "100000"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("skills/x/SKILL.md", []byte(c.in))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "skills/x/SKILL.md") {
				t.Errorf("error %q does not name the file", msg)
			}
			if c.field != "" {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Fatalf("error %q is not a *FieldError", msg)
				}
				if fe.Field != c.field {
					t.Errorf("field = %q; want %q (%s)", fe.Field, c.field, msg)
				}
				if fe.Accept == "" {
					t.Errorf("error %q does not say what is accepted", msg)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "0x", "a.b", "deploy-checklist", "x_y", strings.Repeat("a", 64)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "A", "a/b", "..", ".a", "_a", "a b", "ä", strings.Repeat("a", 65)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted", bad)
		}
	}
}
