package session

import "context"

// maxLineage bounds how far Newest follows a lineage, so a loop in broken
// data cannot hold it for ever.
const maxLineage = 1000

// Newest follows a session's lineage to its newest continuation: a
// compressed conversation goes on in a child session, so resuming the
// parent means resuming the newest child. It returns id itself when the
// session has no children.
func Newest(ctx context.Context, st Store, id string) (string, error) {
	for range maxLineage {
		kids, err := st.List(ctx, ListOptions{ParentID: id, Limit: 1})
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
