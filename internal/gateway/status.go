package gateway

import "context"

// Checker is a platform that can check its credentials and its
// connection without receiving anything, so hermes gateway status can say
// whether each platform would connect, and why not, while serve runs or
// before it does.
type Checker interface {
	// Check returns who hermes is on the platform ("@hermes_bot") and
	// anything worth knowing about the connection; an error says why it
	// would not connect.
	Check(ctx context.Context) (string, error)
}
