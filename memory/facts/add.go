package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"unicode/utf8"
)

// minContained is the shortest normalized content, in characters, that
// counts as a near-duplicate by being contained in another: shorter, and
// "uses go" would swallow every fact that mentions Go. Containment is of
// whole words (normalized text is padded with spaces before comparing),
// so "batch 1" is not inside "batch 10"; CJK text, each character a word
// there, compares by characters.
const minContained = 12

// Add stores facts in one transaction and returns how many became new
// rows. A fact whose normalized content equals an existing fact's, or
// contains it, or is contained in it, is merged into that fact instead:
// the longer wording (with its kind and subject) is kept, and the source
// becomes the newer fact's session, the last one to confirm it. Facts of
// one call are compared with each other the same way. A fact with a bad
// kind or empty content fails the whole call, naming it.
//
// With an embedder (Options.Embed), each fact's vector is computed before
// the transaction; if the embedder fails, the facts are stored without
// vectors and found by words alone.
func (s *Store) Add(ctx context.Context, facts []Fact) (added int, err error) {
	if len(facts) == 0 {
		return 0, nil
	}
	clean := make([]Fact, len(facts))
	for i, f := range facts {
		if clean[i], err = validate(i, f); err != nil {
			return 0, fmt.Errorf("facts: add: %w", err)
		}
	}
	vecs := s.embedFacts(ctx, clean)
	now := micros(s.now())
	err = s.writeTx(ctx, "facts: add", func(tx *sql.Tx) error {
		added = 0 // the transaction may run more than once
		for i, f := range clean {
			var blob []byte
			if vecs != nil {
				blob = encodeVector(vecs[i])
			}
			isNew, err := addOne(ctx, tx, s.owner, f, blob, now)
			if err != nil {
				return fmt.Errorf("facts[%d]: %w", i, err)
			}
			if isNew {
				added++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return added, nil
}

// addOne merges f into a near-duplicate or inserts it, reporting whether
// it inserted.
func addOne(ctx context.Context, tx *sql.Tx, owner string, f Fact, blob []byte, now int64) (bool, error) {
	norm := normalize(f.Content)
	cjk := hasCJK(f.Subject + f.Content)
	var (
		id      int64
		content string
		subject string
	)
	err := tx.QueryRowContext(ctx, `
SELECT id, content, subject FROM facts
WHERE owner = ?3 AND (norm = ?1
   OR (length(?1) >= ?2 AND instr(' ' || norm || ' ', ' ' || ?1 || ' ') > 0)
   OR (length(norm) >= ?2 AND instr(' ' || ?1 || ' ', ' ' || norm || ' ') > 0))
ORDER BY norm = ?1 DESC, id
LIMIT 1`, norm, minContained, owner).Scan(&id, &content, &subject)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err := tx.ExecContext(ctx, `
INSERT INTO facts (kind, subject, content, norm, has_cjk, source_session, created_at, embedding, owner)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			string(f.Kind), f.Subject, f.Content, norm, cjk, f.SourceSession, now, blob, owner)
		if err != nil {
			return false, fmt.Errorf("insert: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("look for a duplicate: %w", err)
	}

	if utf8.RuneCountInString(f.Content) > utf8.RuneCountInString(content) {
		if f.Subject == "" {
			f.Subject = subject
		}
		_, err = tx.ExecContext(ctx, `
UPDATE facts SET kind = ?, subject = ?, content = ?, norm = ?, has_cjk = ?,
	source_session = CASE WHEN ? != '' THEN ? ELSE source_session END,
	embedding = coalesce(?, embedding)
WHERE id = ?`,
			string(f.Kind), f.Subject, f.Content, norm, cjk, f.SourceSession, f.SourceSession, blob, id)
	} else {
		_, err = tx.ExecContext(ctx, `
UPDATE facts SET
	source_session = CASE WHEN ? != '' THEN ? ELSE source_session END,
	subject = CASE WHEN subject = '' THEN ? ELSE subject END
WHERE id = ?`, f.SourceSession, f.SourceSession, f.Subject, id)
	}
	if err != nil {
		return false, fmt.Errorf("merge into fact %d: %w", id, err)
	}
	return false, nil
}
