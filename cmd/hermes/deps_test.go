package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var updateDeps = flag.Bool("update", false, "rewrite deps.txt from the modules the binary links")

// depsHeader opens deps.txt.
const depsHeader = `# The modules linked into the hermes binary (go list -deps ./cmd/hermes),
# with how many of their packages it uses (linux/amd64, CGO_ENABLED=0). Every line is a decision: a new
# module, or one that brings many more packages, must be worth its size in
# the binary; say why in the commit that changes this file.
# Regenerate: go test ./cmd/hermes -run TestDependencies -update
`

// TestDependencies fails when the modules the binary links differ from
// deps.txt, so that a new dependency — and its weight — shows in review
// rather than slipping in with an import.
func TestDependencies(t *testing.T) {
	// The binary as it ships: pure Go, for the platform the list is kept
	// for (a few modules have per-platform packages).
	list := exec.Command("go", "list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	count := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" {
			count[line]++
		}
	}
	var lines []string
	for mod, n := range count {
		lines = append(lines, fmt.Sprintf("%s %d", mod, n))
	}
	slices.Sort(lines)
	want := depsHeader + strings.Join(lines, "\n") + "\n"
	if *updateDeps {
		if err := os.WriteFile("deps.txt", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("deps.txt")
	if err != nil {
		t.Fatalf("%v; create it with: go test ./cmd/hermes -run TestDependencies -update", err)
	}
	if string(have) == want {
		return
	}
	old := strings.Split(strings.TrimSpace(string(have)), "\n")
	for _, l := range lines {
		if !slices.Contains(old, l) {
			t.Errorf("linked now, not in deps.txt: %s", l)
		}
	}
	for _, l := range old {
		if !strings.HasPrefix(l, "#") && !slices.Contains(lines, l) {
			t.Errorf("in deps.txt, not linked now: %s", l)
		}
	}
	t.Errorf("the binary's dependencies changed; if that is intended, run: go test ./cmd/hermes -run TestDependencies -update")
}
