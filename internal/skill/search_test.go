package skill

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// searchLibrary is a small library with overlapping vocabulary, so
// ranking has to weigh fields and rarity.
func searchLibrary(t *testing.T) *Library {
	dir := t.TempDir()
	writeSkill(t, dir, "devops", "k8s-rollout", doc("k8s-rollout", "Roll out and roll back a Kubernetes deployment.", "metadata: {hermes: {tags: [kubernetes, kubectl, deploy]}}"))
	writeSkill(t, dir, "devops", "deploy-checklist", doc("deploy-checklist", "Checklist before deploying a web service to production.", "metadata: {hermes: {tags: [deploy, release]}}"))
	writeSkill(t, dir, "data", "csv-cleanup", doc("csv-cleanup", "Clean messy CSV files - encodings, delimiters, duplicate rows.", "metadata: {hermes: {tags: [csv, pandas]}}"))
	writeSkill(t, dir, "research", "arxiv-digest", doc("arxiv-digest", "Summarize new arXiv papers on a topic.", "metadata: {hermes: {tags: [papers, research]}}"))
	writeSkill(t, dir, "software-development", "systematic-debugging", doc("systematic-debugging", "Reproduce, bisect, hypothesize, fix minimally and verify a bug.", "metadata: {hermes: {tags: [debug, bisect]}}"))
	writeSkill(t, dir, "office", "weekly-report", doc("weekly-report", "每周竞品动态周报：抓取、总结、推送到企业微信群。"))
	return open(dir)
}

func TestSearchRanksRightSkillFirst(t *testing.T) {
	lib := searchLibrary(t)
	cases := map[string]string{
		"rollback kubernetes deployment": "k8s-rollout",
		"deploy to production checklist": "deploy-checklist",
		"duplicate rows in a csv":        "csv-cleanup",
		"papers":                         "arxiv-digest",
		"git bisect a failing test bug":  "systematic-debugging",
		"竞品周报":                           "weekly-report",
		"Debugging":                      "systematic-debugging",
		"release checklist for deploys":  "deploy-checklist",
	}
	for q, want := range cases {
		hits := lib.Search(q, 3)
		if len(hits) == 0 || hits[0].Skill.Name != want {
			var got []string
			for _, h := range hits {
				got = append(got, h.Skill.Name)
			}
			t.Errorf("Search(%q) = %v; want %s first", q, got, want)
		}
	}
	if hits := lib.Search("zebra unicorn", 5); len(hits) != 0 {
		t.Errorf("unrelated query found %v", hits[0].Skill.Name)
	}
	if hits := lib.Search("deploy", 1); len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func TestSearchTool(t *testing.T) {
	lib := searchLibrary(t)
	out, err := call(t, toolNamed(t, lib, "skills_search"), `{"query":"kubernetes rollback","limit":2}`)
	if err != nil {
		t.Fatal(err)
	}
	skills := out["skills"].([]any)
	if len(skills) == 0 || skills[0].(map[string]any)["name"] != "k8s-rollout" {
		t.Errorf("skills_search = %v", out)
	}
	_, err = call(t, toolNamed(t, lib, "skills_search"), `{"query":"  "}`)
	wantCode(t, err, tool.CodeInvalidArguments, "query")
}

func TestListTool(t *testing.T) {
	lib := searchLibrary(t)
	lt := toolNamed(t, lib, "skills_list")
	out, err := call(t, lt, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if n := out["count"].(float64); n != 6 {
		t.Errorf("count = %v; want 6", n)
	}
	out, err = call(t, lt, `{"category":"devops"}`)
	if err != nil {
		t.Fatal(err)
	}
	first := out["skills"].([]any)[0].(map[string]any)
	if out["count"].(float64) != 2 || first["name"] != "deploy-checklist" || first["category"] != "devops" || first["description"] == "" {
		t.Errorf("devops list = %v", out)
	}
	_, err = call(t, lt, `{"category":"nope"}`)
	wantCode(t, err, tool.CodeNotFound, `"nope"`, "devops")
}

func TestToolSpecsRegister(t *testing.T) {
	reg := tool.NewRegistry()
	for _, tl := range Tools(open(t.TempDir())) {
		if err := reg.Register(tl); err != nil {
			t.Fatal(err)
		}
		if tl.Spec().Toolset != Toolset {
			t.Errorf("%s toolset = %q", tl.Spec().Name, tl.Spec().Toolset)
		}
	}
	if len(reg.All()) != 4 {
		t.Errorf("%d tools registered", len(reg.All()))
	}
}

func TestTokenize(t *testing.T) {
	got := strings.Join(tokenize("Deploys the K8s-rollout, 竞品!"), " ")
	if got != "deploy k8s rollout 竞 品" {
		t.Errorf("tokenize = %q", got)
	}
}
