package terminal

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/internal/tool"
)

// dirApprover records the directory each command was judged in.
type dirApprover struct{ dirs, commands []string }

func (d *dirApprover) ApproveCommand(_ context.Context, cmd string) error {
	d.dirs, d.commands = append(d.dirs, "(none)"), append(d.commands, cmd)
	return nil
}

func (d *dirApprover) ApproveCommandIn(_ context.Context, dir, cmd string) error {
	d.dirs, d.commands = append(d.dirs, dir), append(d.commands, cmd)
	return nil
}

// The approver is told the directory a command starts in — the one an
// earlier call cd-ed to — since a relative path means nothing without it.
func TestApproverSeesSessionDirectory(t *testing.T) {
	tr := newTerminal(t, Options{})
	dir := realDir(t, t.TempDir())
	ap := &dirApprover{}
	ctx := tool.WithInvocation(context.Background(), tool.Invocation{SessionID: "s", Workdir: dir, Approver: ap})
	for _, args := range []string{
		`{"command":"mkdir -p sub && cd sub"}`,
		`{"command":"echo key >> authorized_keys"}`,
		`{"command":"pwd","workdir":"/tmp"}`,
	} {
		if _, err := tr.Call(ctx, json.RawMessage(args)); err != nil {
			t.Fatalf("%s: %v", args, err)
		}
	}
	want := []string{dir, filepath.Join(dir, "sub"), "/tmp"}
	for i, w := range want {
		if i >= len(ap.dirs) || ap.dirs[i] != w {
			t.Fatalf("the approver was asked about %q in %q; want the directories %q", ap.commands, ap.dirs, want)
		}
	}
}
