package tool

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func specNames(r *Registry) []string {
	var names []string
	for _, s := range r.Specs() {
		names = append(names, s.Name)
	}
	return names
}

func TestSwapReachesViews(t *testing.T) {
	r := newRegistry(t, simple("read_file", "files", ""), simple("orders_v1", "declared", ""))
	view, err := r.Select([]string{"declared"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := specNames(view); !slices.Equal(got, []string{"orders_v1"}) {
		t.Fatalf("view offers %v", got)
	}
	if err := r.Swap([]string{"orders_v1"}, []Tool{simple("orders_v2", "declared", "")}); err != nil {
		t.Fatal(err)
	}
	if got := specNames(view); !slices.Equal(got, []string{"orders_v2"}) {
		t.Errorf("after Swap the view offers %v, want [orders_v2]", got)
	}
	if got := specNames(r); !slices.Equal(got, []string{"orders_v2", "read_file"}) {
		t.Errorf("after Swap the registry offers %v", got)
	}
	if n := view.Unregister("orders_v2", "nope"); n != 1 {
		t.Errorf("Unregister removed %d, want 1", n)
	}
	if got := specNames(r); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("after Unregister the registry offers %v", got)
	}
}

func TestSwapIsAllOrNothing(t *testing.T) {
	r := newRegistry(t, simple("a", "x", ""), simple("b", "x", ""))
	tests := []struct {
		name   string
		remove []string
		add    []Tool
		want   string
	}{
		{"taken name", nil, []Tool{simple("c", "x", ""), simple("a", "x", "")}, `tool "a" is already registered`},
		{"twice in add", nil, []Tool{simple("c", "x", ""), simple("c", "x", "")}, `tool "c" is already registered`},
		{"bad schema", []string{"a"}, []Tool{simple("c", "x", `{"type":"array"}`)}, `"c"`},
		{"unknown remove", []string{"zz"}, []Tool{simple("c", "x", "")}, `tool "zz" is not registered`},
	}
	for _, tt := range tests {
		err := r.Swap(tt.remove, tt.add)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Swap error = %v, want it to mention %s", tt.name, err, tt.want)
		}
		if got := specNames(r); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("%s: a refused Swap changed the set to %v", tt.name, got)
		}
	}
	// Replacing a tool by one of the same name is a swap, not a clash.
	if err := r.Swap([]string{"a"}, []Tool{simple("a", "y", "")}); err != nil {
		t.Errorf("replacing a by a new a: %v", err)
	}
	if tl, _ := r.Get("a"); tl.Spec().Toolset != "y" {
		t.Errorf("a was not replaced")
	}
}

// TestSwapWhileQuerying runs swaps against the loop's queries; with -race
// it checks the shared table and the views' snapshots.
func TestSwapWhileQuerying(t *testing.T) {
	r := newRegistry(t, simple("a", "x", ""))
	view, _ := r.Select(nil, nil)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 200 {
			_ = r.Swap(nil, []Tool{simple("b", "x", "")})
			r.Unregister("b")
		}
	}()
	go func() {
		defer wg.Done()
		for range 200 {
			names := specNames(view)
			if !slices.Contains(names, "a") {
				t.Errorf("a query saw %v without a", names)
				return
			}
			view.Resolve("b")
		}
	}()
	wg.Wait()
}

func TestExpectedToolsetSelectsLateTools(t *testing.T) {
	r := newRegistry(t, simple("read_file", "files", ""))
	if _, err := r.Select([]string{"mcp-github"}, nil); err == nil {
		t.Fatal("selecting an unknown toolset succeeded")
	}
	r.Expect("mcp-github")
	view, err := r.Select([]string{"mcp-github"}, nil)
	if err != nil {
		t.Fatalf("selecting an expected toolset: %v", err)
	}
	if got := specNames(view); len(got) != 0 {
		t.Fatalf("view offers %v before the tools arrive", got)
	}
	if err := r.Register(simple("mcp__github__issues", "mcp-github", "")); err != nil {
		t.Fatal(err)
	}
	if got := specNames(view); !slices.Equal(got, []string{"mcp__github__issues"}) {
		t.Errorf("after the tools arrived the view offers %v", got)
	}
}
