package email

import (
	"context"
	"sync"
)

// State is what the adapter keeps across restarts: where reading each
// mailbox stopped, so that no mail is answered twice, and each thread's
// last message, so that a reply after a restart is still threaded.
// gateway/gwstore keeps it in state.db.
type State interface {
	// Cursor returns the mailbox's UIDVALIDITY when it was last read and
	// the last UID taken; zeros when it was never read.
	Cursor(ctx context.Context, mailbox string) (validity, last uint32, err error)
	SetCursor(ctx context.Context, mailbox string, validity, last uint32) error
	// Thread returns thread (its root Message-ID) with chat (the
	// correspondent's address), and whether it is known.
	Thread(ctx context.Context, chat, thread string) (Thread, bool, error)
	SetThread(ctx context.Context, chat, thread string, t Thread) error
}

// Thread is what a reply in a mail thread needs.
type Thread struct {
	// Subject is the thread's subject, without "Re:".
	Subject string
	// LastID is the Message-ID of the thread's last message, which the
	// next reply answers (In-Reply-To).
	LastID string
	// References is that message's References, which the reply's
	// References continue.
	References string
}

// memState is a State in memory, for an adapter without a store.
type memState struct {
	mu      sync.Mutex
	cursors map[string][2]uint32
	threads map[[2]string]Thread
}

func newMemState() *memState {
	return &memState{cursors: map[string][2]uint32{}, threads: map[[2]string]Thread{}}
}

func (m *memState) Cursor(_ context.Context, mailbox string) (uint32, uint32, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.cursors[mailbox]
	return c[0], c[1], nil
}

func (m *memState) SetCursor(_ context.Context, mailbox string, validity, last uint32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cursors[mailbox] = [2]uint32{validity, last}
	return nil
}

func (m *memState) Thread(_ context.Context, chat, thread string) (Thread, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.threads[[2]string{chat, thread}]
	return t, ok, nil
}

func (m *memState) SetThread(_ context.Context, chat, thread string, t Thread) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.threads[[2]string{chat, thread}] = t
	return nil
}
