package session

import (
	"context"
	"time"
)

// Leaser is implemented by stores that several processes share, so that
// the turns of one session run one at a time across all of them: the
// process running a turn holds the session's lease, renews it while the
// turn runs and releases it at the end, and a lease whose holder stopped
// renewing it (the process died) expires and is taken over. Without it two
// processes resuming one session interleave their turns and leave a
// conversation no provider accepts.
type Leaser interface {
	// AcquireLease takes or renews the lease on req.SessionID for
	// req.Holder until req.Now plus req.TTL. The lease is free when
	// nobody holds it, when req.Holder does, when it expired at or before
	// req.Now, or when req.Replace holds it. It returns the lease as it
	// stands afterwards, or ErrNotFound for an unknown session.
	AcquireLease(ctx context.Context, req LeaseRequest) (Lease, error)
	// ReleaseLease gives the lease on a session up if holder holds it.
	ReleaseLease(ctx context.Context, sessionID, holder string) error
}

// LeaseRequest asks for a session's lease.
type LeaseRequest struct {
	SessionID string
	// Holder names the process asking ("host/pid"); it is shown to
	// others who find the session busy.
	Holder string
	Now    time.Time
	TTL    time.Duration
	// Replace, when set, is a holder known to have stopped: its lease is
	// taken over before it expires.
	Replace string
}

// Lease is a session's lease as it stands.
type Lease struct {
	// Held says whether the caller holds it.
	Held bool
	// Holder is who holds it and Until when it lapses unless renewed.
	Holder string
	Until  time.Time
}

// RunningTurn is a session a turn is running in, and the process (host
// and pid) running it: a lease held at the time asked about.
type RunningTurn struct {
	SessionID string
	Holder    string
	Until     time.Time
}
