package kb

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// scopeFixture fills the knowledge bases hr, ops and legal with one
// document each that all answer "vacation policy".
func scopeFixture(t *testing.T, backend string) *KB {
	t.Helper()
	k := openKB(t, backend, Options{})
	for _, name := range []string{"hr", "ops", "legal"} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{name + ".md": "# Vacation policy\nThe " + name + " vacation policy: request leave in the portal.\n"})
		if _, err := k.Add(t.Context(), AddRequest{KB: name, Sources: []string{dir}}); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// callScoped calls a kb_search limited to within.
func callScoped(t *testing.T, k *KB, args string, within ...string) (toolResult, error) {
	t.Helper()
	out, err := NewTool(k, within...).Call(t.Context(), json.RawMessage(args))
	if err != nil {
		return toolResult{}, err
	}
	return out.(toolResult), nil
}

// TestScopedToolRefusesOtherKBs: a kb outside the tool's scope is refused,
// whether it exists or not, with the same message naming only the
// knowledge bases the tool may search, so the refusal reveals nothing
// about the others.
func TestScopedToolRefusesOtherKBs(t *testing.T) { eachBackend(t, testScopedToolRefusesOtherKBs) }

func testScopedToolRefusesOtherKBs(t *testing.T, backend string) {
	k := scopeFixture(t, backend)
	var msgs []string
	for _, name := range []string{"hr", "legal", "nosuch"} {
		_, err := callScoped(t, k, `{"query":"vacation policy","kb":"`+name+`"}`, "ops")
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeDenied {
			t.Fatalf("kb %s: %v, want a denied tool error", name, err)
		}
		msg := strings.ReplaceAll(err.Error(), `"`+name+`"`, `"X"`)
		if !strings.Contains(msg, "search one of ops, or omit kb") {
			t.Errorf("kb %s: %q does not say what may be searched", name, err)
		}
		for _, other := range []string{"hr", "legal"} {
			if other != name && strings.Contains(err.Error(), other) {
				t.Errorf("kb %s: %q names the knowledge base %s", name, err, other)
			}
		}
		msgs = append(msgs, msg)
	}
	if msgs[0] != msgs[2] || msgs[1] != msgs[2] {
		t.Errorf("refusals differ between existing and missing knowledge bases: %q", msgs)
	}
	res, err := callScoped(t, k, `{"query":"vacation policy","kb":"ops"}`, "ops")
	if err != nil || len(res.Results) != 1 || res.Results[0].KB != "ops" {
		t.Errorf("its own kb: %+v, %v", res.Results, err)
	}
}

// TestScopedToolSearchesItsOwn: without kb a scoped search finds only
// passages of its knowledge bases; an unscoped one finds all of them.
func TestScopedToolSearchesItsOwn(t *testing.T) { eachBackend(t, testScopedToolSearchesItsOwn) }

func testScopedToolSearchesItsOwn(t *testing.T, backend string) {
	k := scopeFixture(t, backend)
	for _, tc := range []struct {
		within []string
		want   string
	}{
		{[]string{"ops"}, "ops"},
		{[]string{"ops", "legal"}, "legal,ops"},
		{nil, "hr,legal,ops"},
	} {
		res, err := callScoped(t, k, `{"query":"vacation policy hr legal ops","limit":20}`, tc.within...)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Results {
			got = append(got, p.KB)
		}
		if strings.Join(slices.Compact(slices.Sorted(slices.Values(got))), ",") != tc.want {
			t.Errorf("within %v: passages of %v, want %s", tc.within, got, tc.want)
		}
	}
}

// TestScopedToolDescribesItsScope: the model is told which knowledge
// bases it may search, and of no others.
func TestScopedToolDescribesItsScope(t *testing.T) { eachBackend(t, testScopedToolDescribesItsScope) }

func testScopedToolDescribesItsScope(t *testing.T, backend string) {
	spec := NewTool(openKB(t, backend, Options{}), "ops", "eng", "ops").Spec()
	if !strings.Contains(spec.Description, "You may search only these knowledge bases: eng, ops.") {
		t.Errorf("description %q", spec.Description)
	}
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if d := schema.Properties["kb"].Description; !strings.Contains(d, "one of: eng, ops;") {
		t.Errorf("kb parameter %q", d)
	}
	if d := NewTool(openKB(t, backend, Options{})).Spec().Description; strings.Contains(d, "You may search only") {
		t.Errorf("unscoped description %q", d)
	}
}

// TestScopedToolAvailable: a scoped tool is offered only while one of its
// own knowledge bases holds a source, whatever the others hold.
func TestScopedToolAvailable(t *testing.T) { eachBackend(t, testScopedToolAvailable) }

func testScopedToolAvailable(t *testing.T, backend string) {
	k := scopeFixture(t, backend)
	if err := NewTool(k, "finance").(tool.Availability).Available(); err == nil || !strings.Contains(err.Error(), "hermes kb add PATH --kb finance") {
		t.Errorf("empty scope: Available() = %v", err)
	}
	if err := NewTool(k, "finance", "ops").(tool.Availability).Available(); err != nil {
		t.Errorf("one of its kbs has documents: Available() = %v", err)
	}
	if err := NewTool(k).(tool.Availability).Available(); err != nil {
		t.Errorf("unscoped: Available() = %v", err)
	}
	if _, err := k.RemoveKB(t.Context(), "ops"); err != nil {
		t.Fatal(err)
	}
	if err := NewTool(k, "ops").(tool.Availability).Available(); err == nil {
		t.Error("ops removed: still available")
	}
}
