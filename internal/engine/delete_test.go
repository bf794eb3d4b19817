package engine_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hermes-go/hermes/internal/engine"
	"github.com/hermes-go/hermes/internal/session"
)

// A session another process is running a turn in is not deleted: the
// turn would go on writing to a session that is gone. Once the lease is
// given up the session goes, and an unknown one is ErrNotFound.
func TestDeleteSessionRefusesABusySession(t *testing.T) {
	rig := newLeaseRig(t)
	e := rig.engine(t, "this-host/1", -1)
	rig.hold(t, "other-host/7")
	err := e.DeleteSession(context.Background(), rig.sess.ID)
	var busy *engine.BusyError
	if !errors.As(err, &busy) || busy.Holder != "other-host/7" {
		t.Fatalf("deleting a busy session: %v, want a BusyError naming other-host/7", err)
	}
	if _, err := rig.st.Get(context.Background(), rig.sess.ID); err != nil {
		t.Fatalf("the busy session is gone: %v", err)
	}
	if err := rig.st.ReleaseLease(context.Background(), rig.sess.ID, "other-host/7"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteSession(context.Background(), rig.sess.ID); err != nil {
		t.Fatalf("deleting an idle session: %v", err)
	}
	if _, err := rig.st.Get(context.Background(), rig.sess.ID); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("after delete: %v, want ErrNotFound", err)
	}
	if err := e.DeleteSession(context.Background(), rig.sess.ID); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("deleting it again: %v, want ErrNotFound", err)
	}
}
