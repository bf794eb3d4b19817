package facts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqltext"
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
	d := s.db.Dialect()
	err = s.writeTx(ctx, "facts: add", func(tx *sql.Tx) error {
		added = 0 // the transaction may run more than once
		if err := lockOwner(ctx, tx, d, s.owner); err != nil {
			return err
		}
		for i, f := range clean {
			var blob []byte
			if vecs != nil {
				blob = encodeVector(vecs[i])
			}
			isNew, err := addOne(ctx, tx, d, s.owner, f, vector{blob, s.model}, now)
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

// lockOwner makes the transaction the only one adding owner's facts
// until it ends. SQLite's one writer does so already; on PostgreSQL two
// replicas adding the same fact at once would each find no duplicate
// under READ COMMITTED and both insert it, so a transaction-scoped
// advisory lock per owner queues them, and the second finds the first's
// row.
func lockOwner(ctx context.Context, tx *sql.Tx, d sqldb.Dialect, owner string) error {
	if d != sqldb.Postgres {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?, hashtext(?))`, factsLockClass, owner); err != nil {
		return fmt.Errorf("lock the facts of %q: %w", owner, err)
	}
	return nil
}

// factsLockClass is the first key of the facts' advisory locks ("fact"
// in ASCII), the owner's hash being the second.
const factsLockClass = 0x66616374

// addOne merges f into a near-duplicate or inserts it, reporting whether
// it inserted.
func addOne(ctx context.Context, tx *sql.Tx, d sqldb.Dialect, owner string, f Fact, vec vector, now int64) (bool, error) {
	f.Kind = Kind(sqltext.Clean(d, string(f.Kind)))
	f.Subject, f.Content = sqltext.Clean(d, f.Subject), sqltext.Clean(d, f.Content)
	f.SourceSession = sqltext.Clean(d, f.SourceSession)
	norm := normalize(f.Content)
	cjk := 0
	if hasCJK(f.Subject + f.Content) {
		cjk = 1
	}
	var (
		id      int64
		content string
		subject string
	)
	// Containment compares whole words: both sides padded with spaces.
	// The new content's length is known here; the stored one's is not.
	padded := " " + norm + " "
	longEnough := 0
	if utf8.RuneCountInString(norm) >= minContained {
		longEnough = 1
	}
	err := tx.QueryRowContext(ctx, `
SELECT id, content, subject FROM facts
WHERE owner = ? AND superseded_by = 0 AND (norm = ?
   OR (? = 1 AND `+sqltext.Contains(d, "' ' || norm || ' '", "?")+`)
   OR (length(norm) >= ? AND `+sqltext.Contains(d, "?", "' ' || norm || ' '")+`))
ORDER BY CASE WHEN norm = ? THEN 0 ELSE 1 END, id
LIMIT 1`, owner, norm, longEnough, padded, minContained, padded, norm).Scan(&id, &content, &subject)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var id int64
		err := tx.QueryRowContext(ctx, `
INSERT INTO facts (kind, subject, content, norm, has_cjk, source_session, created_at, owner)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			string(f.Kind), f.Subject, f.Content, norm, cjk, f.SourceSession, now, owner).Scan(&id)
		if err != nil {
			return false, fmt.Errorf("insert: %w", err)
		}
		if err := putVector(ctx, tx, id, vec); err != nil {
			return false, err
		}
		return true, supersede(ctx, tx, owner, id, f.Subject, now)
	case err != nil:
		return false, fmt.Errorf("look for a duplicate: %w", err)
	}

	if utf8.RuneCountInString(f.Content) > utf8.RuneCountInString(content) {
		if f.Subject == "" {
			f.Subject = subject
		}
		_, err = tx.ExecContext(ctx, `
UPDATE facts SET kind = ?, subject = ?, content = ?, norm = ?, has_cjk = ?,
	source_session = CASE WHEN ? != '' THEN ? ELSE source_session END
WHERE id = ?`,
			string(f.Kind), f.Subject, f.Content, norm, cjk, f.SourceSession, f.SourceSession, id)
		if err == nil {
			err = putVector(ctx, tx, id, vec)
		}
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

// supersede marks the current facts of owner about subject stored
// before now, as superseded by fact id: a later fact of the same subject
// is what holds now ("the weekly report goes out on Mondays" after "on
// Fridays"). Facts stored together (one extraction) do not supersede each
// other. Subjects compare without case or surrounding space; a fact
// without a subject supersedes nothing.
func supersede(ctx context.Context, tx *sql.Tx, owner string, id int64, subject string, now int64) error {
	if strings.TrimSpace(subject) == "" {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE facts SET superseded_by = ?
WHERE owner = ? AND superseded_by = 0 AND id != ? AND created_at < ? AND lower(trim(subject)) = lower(trim(?))`, id, owner, id, now, subject)
	if err != nil {
		return fmt.Errorf("supersede the facts about %q: %w", subject, err)
	}
	return nil
}

// vector is a fact's vector as stored, and the model it came from.
type vector struct {
	blob  []byte
	model string
}

// putVector stores v as fact id's vector, replacing the one it had,
// under a new seq (see vectorCache); without a vector it keeps the old.
func putVector(ctx context.Context, tx *sql.Tx, id int64, v vector) error {
	if v.blob == nil {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM fact_vectors WHERE fact_id = ?`, id); err != nil {
		return fmt.Errorf("replace the vector of fact %d: %w", id, err)
	}
	// A fact forgotten since it was read (Backfill) gets no vector.
	if _, err := tx.ExecContext(ctx, `INSERT INTO fact_vectors (fact_id, model, vector)
SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM facts WHERE id = ?)`, id, v.model, v.blob, id); err != nil {
		return fmt.Errorf("store the vector of fact %d: %w", id, err)
	}
	return nil
}
