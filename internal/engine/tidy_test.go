package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/session"
)

// Tidy compresses a stored session only past the share asked for, and
// leaves a short one alone without asking the model.
func TestTidyCompressesOnlyPastTheShare(t *testing.T) {
	rig := newCompressionRig(t, "")
	ctx := context.Background()
	grow := func(n int) string {
		s := &session.Session{Source: "telegram", Model: "m"}
		if err := rig.st.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		var msgs []*session.Message
		for i := range n {
			role := llm.RoleUser
			if i%2 == 1 {
				role = llm.RoleAssistant
			}
			msgs = append(msgs, &session.Message{SessionID: s.ID, CreatedAt: time.Now(),
				Message: llm.Message{Role: role, Content: []llm.Part{llm.TextPart(strings.Repeat("host log rotated ", 300))}}})
		}
		if err := rig.st.Append(ctx, s.ID, msgs...); err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	// ~1,300 tokens a message: 4 fill about half the usable 11,000,
	// 10 pass 85 % of it.
	short, long := grow(4), grow(10)
	res, err := rig.e.Tidy(ctx, short, 0.85)
	if err != nil || res != nil {
		t.Fatalf("Tidy(short) = %+v, %v; want nothing done", res, err)
	}
	if n := rig.summaries(); n != 0 {
		t.Fatalf("%d summary calls for a session under the share", n)
	}
	res, err = rig.e.Tidy(ctx, long, 0.85)
	if err != nil || res == nil {
		t.Fatalf("Tidy(long) = %+v, %v; want a compression", res, err)
	}
	if rig.summaries() != 1 || res.After >= res.Before || res.SessionID == long {
		t.Errorf("compression %+v after %d summary calls; want one call, a smaller child session", res, rig.summaries())
	}
	child, err := rig.st.Get(ctx, res.SessionID)
	if err != nil || child.ParentID != long {
		t.Errorf("child %+v, %v; want a child of %s", child, err, long)
	}
	// With compression off there is nothing to do.
	off := engine.New(engine.Options{Store: rig.st, Models: oneModel{}, Tools: engine.Tools{Registry: registry(t)}})
	t.Cleanup(off.Close)
	if res, err := off.Tidy(ctx, long, 0.85); res != nil || err != nil {
		t.Errorf("Tidy without a compressor = %+v, %v", res, err)
	}
}
