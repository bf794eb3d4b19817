package safety_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/internal/safety"
)

// A Policy with no one to ask refuses dangerous commands and explains
// the refusal to the model.
func ExamplePolicy_Check() {
	p := &safety.Policy{Mode: safety.ModeManual, Allowlist: []string{"git_reset_hard"}}
	ctx := context.Background()
	fmt.Println(p.Check(ctx, "session-1", safety.Asker{}, "git reset --hard HEAD~1"))
	err := p.Check(ctx, "session-1", safety.Asker{}, "rm -rf build")
	var denied *safety.DeniedError
	if errors.As(err, &denied) {
		fmt.Println(denied.Verdict.Rule)
		fmt.Println(err)
	}
	// Output:
	// <nil>
	// recursive_delete
	// command denied: it needs approval (recursive delete) and nobody can be asked in this session. Do not retry the same command; ask the user, or choose a safer command.
}
