package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hermes-go/hermes/internal/sqlitedb"
)

// indexBatch is how many messages this store appends before it adds them
// to the full-text indexes, in the transaction of the append that reaches
// it. FTS5 writes a new index segment at every commit that indexes
// anything, which made indexing four fifths of the cost of storing a
// message one commit at a time; a batch of 64 writes one segment for all
// of them. Search indexes whatever is left first, so it never misses a
// message, and Close indexes what this store appended.
const indexBatch = 64

// batchDue reports whether an append of n messages completes a batch, so
// its transaction should index the pending messages too.
func (s *Store) batchDue(n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unindexed+n >= indexBatch
}

// appended counts n messages appended by a committed transaction, which
// indexed every pending message when indexed is set.
func (s *Store) appended(n int, indexed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if indexed {
		s.unindexed = 0
	} else {
		s.unindexed += n
	}
}

// indexed notes that a transaction that indexed everything committed.
func (s *Store) indexed() { s.appended(0, true) }

// indexPending adds every message not yet in the full-text indexes, from
// this process or any other, so that a search sees them all. It takes the
// write lock only when there is something to add.
func (s *Store) indexPending(ctx context.Context) error {
	behind, err := sqlitedb.MessagesUnindexed(ctx, s.read)
	if err != nil || !behind {
		return err
	}
	err = s.writeTx(ctx, "sqlite: index messages", func(tx *sql.Tx) error {
		_, err := sqlitedb.IndexMessages(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: index messages: %w", err)
	}
	s.indexed()
	return nil
}
