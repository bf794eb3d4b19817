package slack

import "sync"

// maxThreads bounds the threads the adapter remembers answering in, so
// memory stays flat however long hermes runs.
const maxThreads = 4096

// threads remembers the channel threads hermes has answered in, so a
// reply in one of them is meant for hermes without a mention: Slack
// names only the thread's first author (parent_user_id), who is the
// person hermes answered. The oldest are forgotten first; after a
// restart a mention brings hermes back.
type threads struct {
	mu    sync.Mutex
	set   map[string]bool
	order []string
}

func threadKey(channel, ts string) string { return channel + "/" + ts }

// add remembers the thread ts of channel.
func (t *threads) add(channel, ts string) {
	k := threadKey(channel, ts)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.set == nil {
		t.set = map[string]bool{}
	}
	if t.set[k] {
		return
	}
	t.set[k] = true
	t.order = append(t.order, k)
	if len(t.order) > maxThreads {
		delete(t.set, t.order[0])
		t.order = t.order[1:]
	}
}

// has reports whether hermes answered in the thread ts of channel.
func (t *threads) has(channel, ts string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.set[threadKey(channel, ts)]
}
