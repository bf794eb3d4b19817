package skill

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

func TestViewTool(t *testing.T) {
	dir := t.TempDir()
	skDir := writeSkill(t, dir, "devops", "deploy", doc("deploy", "Deploy the site."))
	writeFile(t, filepath.Join(skDir, "references", "api.md"), "# API\n")
	writeFile(t, filepath.Join(skDir, "templates", "sub", "t.txt"), "tmpl")
	writeFile(t, filepath.Join(skDir, "assets", "logo.png"), "\x89PNG\x00\xff\xfe")
	writeFile(t, filepath.Join(skDir, "notes.txt"), "not a support folder")
	lib := open(dir)
	v := toolNamed(t, lib, "skill_view")

	out, err := call(t, v, `{"name":"deploy"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out["content"].(string), "name: deploy") || out["path"] != skDir || out["category"] != "devops" {
		t.Errorf("view = %v", out)
	}
	var files []string
	for _, f := range out["support_files"].([]any) {
		files = append(files, f.(string))
	}
	if got := strings.Join(files, ","); got != "assets/logo.png,references/api.md,templates/sub/t.txt" {
		t.Errorf("support_files = %s", got)
	}

	out, err = call(t, v, `{"name":"deploy","file":"references/api.md"}`)
	if err != nil || out["content"] != "# API\n" {
		t.Errorf("file view = %v, %v", out, err)
	}
	out, err = call(t, v, `{"name":"deploy","file":"assets/logo.png"}`)
	if err != nil || out["content"] != nil || out["note"] == nil {
		t.Errorf("binary view = %v, %v", out, err)
	}
	_, err = call(t, v, `{"name":"deploy","file":"references/none.md"}`)
	wantCode(t, err, tool.CodeNotFound, "references/api.md")
	_, err = call(t, v, `{"name":"deploy","file":"../../../etc/passwd"}`)
	wantCode(t, err, tool.CodeInvalidArguments, "leaves the skill directory")
	_, err = call(t, v, `{"name":"deploi"}`)
	wantCode(t, err, tool.CodeNotFound, `"deploi"`)
	_, err = call(t, v, `{"name":"/deploy"}`)
	if err != nil {
		t.Errorf("a leading slash is not accepted: %v", err)
	}
}

func TestInvocation(t *testing.T) {
	dir := t.TempDir()
	skDir := writeSkill(t, dir, "devops", "deploy", doc("deploy", "Deploy the site."))
	writeFile(t, filepath.Join(skDir, "references", "hosts.md"), "web1")
	writeSkill(t, dir, "mac", "mac-only", doc("mac-only", "Mac.", "platforms: [macos]"))
	lib := open(dir)

	msg, err := lib.Invocation("deploy", "  the staging site ")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`The user invoked the skill "deploy". Follow it for: the staging site`,
		"Skill directory: " + skDir,
		"- references/hosts.md",
		"## Procedure\n1. Do it.",
		`<skill name="deploy">`,
	} {
		if !strings.Contains(msg, w) {
			t.Errorf("invocation lacks %q:\n%s", w, msg)
		}
	}
	if strings.Contains(msg, "description: Deploy") {
		t.Error("invocation repeats the front matter")
	}
	msg, err = lib.Invocation("deploy", "")
	if err != nil || !strings.Contains(msg, "Follow it now") {
		t.Errorf("no-instruction invocation = %q, %v", msg, err)
	}
	if _, err := lib.Invocation("mac-only", "x"); err == nil {
		t.Error("invoked a skill for another platform")
	}
	if _, err := lib.Invocation("nope", "x"); err == nil {
		t.Error("invoked a missing skill")
	}
}
