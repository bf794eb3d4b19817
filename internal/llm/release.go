package llm

import (
	"context"
	"io"
	"time"
)

// releaseDrain and releaseWait bound what Release reads after a reply.
const (
	releaseDrain = 64 << 10
	releaseWait  = 250 * time.Millisecond
)

// Release closes the body of a model reply the caller has finished with;
// Endpoint's responses do it when their body is closed.
// Unless ctx is done, it first reads what is left of the body (at most
// 64 KiB, for at most a quarter of a second): net/http puts a
// connection back in its pool only when the body was read to its end, and
// the end of a streamed reply (the last chunk of the chunked encoding)
// usually arrives just after the event that ends the stream, unread.
// Closing at once made most model calls of a turn open a new connection,
// and with a real provider pay a new TLS handshake, every round. The read
// is done before returning, so the next call finds the connection back in
// the pool; what is left is normally there already, and a server that
// holds the body open costs the wait once per call, not a hang.
func Release(ctx context.Context, body io.ReadCloser) {
	if ctx.Err() != nil {
		body.Close()
		return
	}
	stop := time.AfterFunc(releaseWait, func() { body.Close() })
	_, _ = io.CopyN(io.Discard, body, releaseDrain)
	stop.Stop()
	body.Close()
}
