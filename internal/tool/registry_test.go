package tool

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

const objSchema = `{"type":"object","properties":{"path":{"type":"string"}}}`

func TestRegisterRejects(t *testing.T) {
	r := newRegistry(t, simple("read_file", "files", objSchema))
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{"duplicate", simple("read_file", "other", objSchema), `"read_file" is already registered`},
		{"empty name", simple("", "x", objSchema), "empty"},
		{"bad characters", simple("read file", "x", objSchema), "may only contain"},
		{"too long", simple(strings.Repeat("a", 65), "x", objSchema), "at most 64"},
		{"not JSON", simple("a", "x", `{"type":`), `tool "a": parameters schema is not valid JSON`},
		{"not an object schema", simple("b", "x", `{"type":"array"}`), `top-level "type" is "array"`},
		{"schema is a list", simple("c", "x", `[]`), "want a JSON object"},
		{"path arg not declared", &fakeTool{spec: Spec{Name: "f", PathArg: "file", Parameters: json.RawMessage(objSchema)}}, `PathArg "file"`},
		{"negative timeout", &fakeTool{spec: Spec{Name: "g", Timeout: -time.Second}}, "Timeout"},
		{"negative attempts", &fakeTool{spec: Spec{Name: "h", Retry: Retry{Attempts: -1}}}, "Retry.Attempts"},
		{"nil tool", nil, "nil tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Register(tt.tool)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Register() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if got := len(r.All()); got != 1 {
		t.Errorf("after rejected registrations All() has %d tools, want 1", got)
	}
}

// A schema that parses but does not compile is refused by CompileSchema,
// which loaders of outside tools call; registered anyway, its tool is
// compiled on first call and never runs.
func TestSchemaThatDoesNotCompile(t *testing.T) {
	for _, tt := range []struct{ name, schema, want string }{
		{"invalid keyword", `{"type":"object","properties":{"n":{"type":"integr"}}}`, `parameters schema is not a valid JSON Schema`},
		{"external ref", `{"type":"object","properties":{"n":{"$ref":"file:///etc/passwd"}}}`, "self-contained"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := CompileSchema("d", json.RawMessage(tt.schema)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CompileSchema: %v, want an error containing %q", err, tt.want)
			}
			r := newRegistry(t, simple("d", "x", tt.schema))
			if _, err := r.Prepare("d", `{"n":1}`); err == nil || err.Code != CodeInternal || !strings.Contains(err.Message, tt.want) {
				t.Errorf("a call: %v, want %s naming %q", err, CodeInternal, tt.want)
			}
		})
	}
}

func TestRegistrySpecsSortedAndCached(t *testing.T) {
	r := newRegistry(t,
		simple("zeta", "b", objSchema),
		simple("alpha", "a", `{ "type" : "object" }`),
		&fakeTool{spec: Spec{Name: "noparams"}},
		&offTool{fakeTool: *simple("gone", "a", objSchema), reason: errors.New("needs GONE_API_KEY")},
	)
	specs := r.Specs()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if want := []string{"alpha", "noparams", "zeta"}; !slices.Equal(names, want) {
		t.Fatalf("Specs() names = %v, want %v", names, want)
	}
	if got := string(specs[0].Parameters); got != `{"type":"object"}` {
		t.Errorf("parameters not compacted: %s", got)
	}
	if got := string(specs[1].Parameters); got != `{"type":"object","properties":{}}` {
		t.Errorf("empty parameters offered as %s", got)
	}
	if specs[0].Description != "alpha does a thing.\nMore detail." {
		t.Errorf("description = %q, want the full text", specs[0].Description)
	}
	specs[0].Name = "changed"
	if r.Specs()[0].Name != "alpha" {
		t.Error("changing the returned slice changed the registry")
	}
	if err := r.Register(simple("beta", "a", objSchema)); err != nil {
		t.Fatal(err)
	}
	if got := len(r.Specs()); got != 4 {
		t.Errorf("after Register Specs() has %d tools, want 4", got)
	}
}

func TestRegistryAvailabilityRefresh(t *testing.T) {
	off := &offTool{fakeTool: *simple("web_search", "web", objSchema), reason: errors.New("needs SEARCH_API_KEY")}
	r := newRegistry(t, off)
	if len(r.Specs()) != 0 {
		t.Fatal("an unavailable tool was offered")
	}
	list := r.Infos()
	if len(list) != 1 || list[0].Available || list[0].Reason != "needs SEARCH_API_KEY" || !list[0].Selected {
		t.Fatalf("listing = %+v", list)
	}
	if _, ok := r.Get("web_search"); !ok {
		t.Error("Get does not find a registered but unavailable tool")
	}
	if _, _, ok := r.Resolve("web_search"); ok {
		t.Error("Resolve finds an unavailable tool")
	}
	if res := r.UnknownToolResult("web_search"); !strings.Contains(res.Message, "needs SEARCH_API_KEY") {
		t.Errorf("UnknownToolResult = %s, want the reason", res.JSON())
	}
	off.reason = nil
	if len(r.Specs()) != 0 {
		t.Error("availability was asked again without Refresh")
	}
	r.Refresh()
	if len(r.Specs()) != 1 {
		t.Error("after Refresh the now available tool is not offered")
	}
}

func TestSelect(t *testing.T) {
	r := newRegistry(t,
		simple("read_file", "files", objSchema),
		simple("write_file", "files", objSchema),
		simple("web_search", "web", objSchema),
		simple("terminal", "terminal", objSchema),
	)
	tests := []struct {
		enabled, disabled []string
		want              []string
	}{
		{nil, nil, []string{"read_file", "terminal", "web_search", "write_file"}},
		{[]string{"all"}, []string{"terminal"}, []string{"read_file", "web_search", "write_file"}},
		{[]string{"web"}, nil, []string{"web_search"}},
		{[]string{"web", "files"}, []string{"files"}, []string{"web_search"}},
		{nil, []string{"web", "files"}, []string{"terminal"}},
	}
	for _, tt := range tests {
		sel, err := r.Select(tt.enabled, tt.disabled)
		if err != nil {
			t.Fatalf("Select(%v, %v): %v", tt.enabled, tt.disabled, err)
		}
		var got []string
		for _, s := range sel.Specs() {
			got = append(got, s.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Select(%v, %v) offers %v, want %v", tt.enabled, tt.disabled, got, tt.want)
		}
		for _, info := range sel.Infos() {
			if info.Selected != slices.Contains(tt.want, info.Name) {
				t.Errorf("Select(%v, %v): List says %s selected=%v", tt.enabled, tt.disabled, info.Name, info.Selected)
			}
		}
	}
	if len(r.Specs()) != 4 {
		t.Error("Select changed the receiver")
	}
	_, err := r.Select([]string{"web", "fles"}, []string{"nope"})
	if err == nil || !strings.Contains(err.Error(), `"fles", "nope"`) || !strings.Contains(err.Error(), "files, terminal, web") {
		t.Errorf("unknown toolset error = %v", err)
	}
	sel, _ := r.Select([]string{"web"}, nil)
	if res := sel.UnknownToolResult("terminal"); !strings.Contains(res.Message, "not enabled") {
		t.Errorf("calling a deselected tool: %s", res.JSON())
	}
}

func TestListAndToolsets(t *testing.T) {
	r := newRegistry(t, simple("b_tool", "", objSchema), simple("a_tool", "x", objSchema))
	list, err := r.List(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "a_tool" || list[1].Toolset != DefaultToolset {
		t.Fatalf("listing = %+v", list)
	}
	if list[0].Description != "a_tool does a thing." {
		t.Errorf("Description = %q, want the first line", list[0].Description)
	}
	b, _ := json.Marshal(list[0])
	if want := `{"name":"a_tool","toolset":"x","description":"a_tool does a thing.","available":true,"selected":true}`; string(b) != want {
		t.Errorf("Info JSON = %s, want %s", b, want)
	}
	if got := r.Toolsets(); !slices.Equal(got, []string{DefaultToolset, "x"}) {
		t.Errorf("Toolsets() = %v", got)
	}
	list, err = r.List([]string{"x"}, nil)
	if err != nil || len(list) != 2 || !list[0].Selected || list[1].Selected {
		t.Errorf("List([x]) = %+v, %v", list, err)
	}
	if _, err := r.List([]string{"y"}, nil); err == nil {
		t.Error("List with an unknown toolset succeeded")
	}
}

func TestRegistryPrepare(t *testing.T) {
	r := newRegistry(t, simple("read_file", "files", `{"type":"object","properties":{"limit":{"type":"integer"}}}`))
	if got, err := r.Prepare("read_file", `{"limit":"3"}`); err != nil || string(got) != `{"limit":3}` {
		t.Errorf("Prepare = %s, %v", got, err)
	}
	if _, err := r.Prepare("nope", `{}`); err == nil || err.Code != CodeNotFound {
		t.Errorf("Prepare of an unknown tool: %v", err)
	}
}
