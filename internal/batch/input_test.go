package batch

import (
	"strings"
	"testing"
)

func TestReadNamesLineFieldAndWhatIsAccepted(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, want string }{
		{`{"prompt": ""}`, `line 1: prompt: missing or empty`},
		{`{"cwd": "/"}`, `line 1: prompt: missing or empty`},
		{"{\"prompt\":\"a\"}\n\n[1]", `line 3: not a JSON object`},
		{`{"prompt": ["a"]}`, `line 1: prompt: ["a"] is not a string`},
		{`{"prompt": "a", "cwd": 3}`, `line 1: cwd: 3 is not a string`},
		{`{"prompt": "a", "cwd": "` + dir + `/none"}`, `is not a directory`},
		{`{"prompt": "a", "toolsets": [1]}`, `line 1: toolsets: [1] is not a list of toolset names`},
		{`{"prompt": "a", "toolsets": [""]}`, `line 1: toolsets: an empty name`},
		{`{"prompt": "a", "model": "x"}`, `line 1: unknown field "model"; the fields are prompt, cwd and toolsets`},
		{"\n\n", `no prompts`},
		{`{"prompt": "` + strings.Repeat("x", maxLine) + `"}`, `line 1: bufio.Scanner: token too long`},
	} {
		_, err := Read(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.60q: %v, want %q", c.in, err, c.want)
		}
	}
	lines, err := Read(strings.NewReader("{\"prompt\":\"a\"}\n\n{\"prompt\":\"b\",\"cwd\":\"" + dir + "\",\"toolsets\":[\"web\"]}\n"))
	if err != nil || len(lines) != 2 || lines[1].Index != 1 || lines[1].LineNo != 3 || lines[1].Cwd != dir || lines[1].Toolsets[0] != "web" {
		t.Fatalf("%+v %v", lines, err)
	}
}
