package session

import (
	"context"
	"errors"
)

// maxLineage bounds how far Newest follows a lineage, so a loop in broken
// data cannot hold it for ever.
const maxLineage = 1000

// Newest follows a session's lineage to its newest continuation: a
// compressed conversation goes on in a child session, so resuming the
// parent means resuming the newest child. A continuation keeps the
// source of the session it continues; a child of another source (a task
// the conversation delegated) is not one. It returns id itself when the
// session has no continuation.
func Newest(ctx context.Context, st Store, id string) (string, error) {
	s, err := st.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return id, nil // the caller says what is missing
	}
	if err != nil {
		return "", err
	}
	for range maxLineage {
		kids, err := st.List(ctx, ListOptions{ParentID: id, Source: s.Source, Limit: 1})
		if err != nil {
			return "", err
		}
		if len(kids) == 0 {
			break
		}
		id = kids[0].ID
	}
	return id, nil
}
