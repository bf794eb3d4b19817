package team

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Kind is how an artifact's content is held.
type Kind string

// The kinds of artifact.
const (
	// KindText is text held in the store.
	KindText Kind = "text"
	// KindJSON is a JSON document held in the store.
	KindJSON Kind = "json"
	// KindFile is a file on disk, of which the store holds the path.
	KindFile Kind = "file"
)

// MaxInlineBytes bounds a text or JSON artifact; larger output belongs in
// a file artifact.
const MaxInlineBytes = 4 << 20

// maxNameLen bounds an artifact's name.
const maxNameLen = 200

// Artifact is one named output of a task.
type Artifact struct {
	Task int64
	Name string
	Kind Kind
	// Content is the text or JSON of an inline artifact.
	Content string
	// Path is the absolute path of a file artifact.
	Path string
	// Size is the content's length or the file's size, in bytes; set by
	// Complete.
	Size      int64
	CreatedAt time.Time
}

// check validates a and sets its size.
func (a *Artifact) check() error {
	if a.Name == "" || len(a.Name) > maxNameLen || strings.ContainsFunc(a.Name, unicode.IsControl) {
		return fmt.Errorf("name %q is not accepted; use 1 to %d printable characters", a.Name, maxNameLen)
	}
	switch a.Kind {
	case KindText, KindJSON:
		if a.Path != "" {
			return fmt.Errorf("%q: a %s artifact has content, not path %q", a.Name, a.Kind, a.Path)
		}
		if len(a.Content) > MaxInlineBytes {
			return fmt.Errorf("%q: content of %d bytes is over %d; store it as a file artifact", a.Name, len(a.Content), MaxInlineBytes)
		}
		if a.Kind == KindJSON && !json.Valid([]byte(a.Content)) {
			return fmt.Errorf("%q: content is not valid JSON; give a JSON document or use kind text", a.Name)
		}
		a.Size = int64(len(a.Content))
	case KindFile:
		if a.Content != "" {
			return fmt.Errorf("%q: a file artifact has a path, not content", a.Name)
		}
		if !utf8.ValidString(a.Path) {
			return fmt.Errorf("%q: path %q is not valid UTF-8, and artifact paths are kept as text; rename the file or give its content as a text artifact", a.Name, a.Path)
		}
		if !filepath.IsAbs(a.Path) {
			return fmt.Errorf("%q: path %q is not accepted; give the file's absolute path", a.Name, a.Path)
		}
		fi, err := os.Stat(a.Path)
		if err != nil {
			return fmt.Errorf("%q: %w", a.Name, err)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%q: path %q is not a regular file", a.Name, a.Path)
		}
		a.Size = fi.Size()
	default:
		return fmt.Errorf("%q: kind %q is not accepted; use text, json or file", a.Name, a.Kind)
	}
	return nil
}

const artifactColumns = `task, name, kind, content, path, size, created_at`

func scanArtifact(r scanner) (Artifact, error) {
	var a Artifact
	var kind string
	var created int64
	if err := r.Scan(&a.Task, &a.Name, &kind, &a.Content, &a.Path, &a.Size, &created); err != nil {
		return Artifact{}, err
	}
	a.Kind, a.CreatedAt = Kind(kind), fromMicros(created)
	return a, nil
}

// Artifact returns task's artifact name, or an error wrapping ErrNotFound.
func (s *Store) Artifact(ctx context.Context, task int64, name string) (Artifact, error) {
	a, err := scanArtifact(s.read.QueryRowContext(ctx, `SELECT `+artifactColumns+` FROM team_artifacts WHERE task = ? AND name = ?`, task, s.text(name)))
	if errors.Is(err, sql.ErrNoRows) {
		return Artifact{}, fmt.Errorf("team: task %d has no artifact %q: %w", task, name, ErrNotFound)
	}
	if err != nil {
		return Artifact{}, fmt.Errorf("team: artifact %q of task %d: %w", name, task, err)
	}
	return a, nil
}

// Artifacts returns the artifacts of the given tasks, by task then name.
func (s *Store) Artifacts(ctx context.Context, tasks ...int64) ([]Artifact, error) {
	var out []Artifact
	for _, id := range tasks {
		rows, err := s.read.QueryContext(ctx, `SELECT `+artifactColumns+` FROM team_artifacts WHERE task = ? ORDER BY name`, id)
		if err != nil {
			return nil, fmt.Errorf("team: artifacts of task %d: %w", id, err)
		}
		for rows.Next() {
			a, err := scanArtifact(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("team: artifacts of task %d: %w", id, err)
			}
			out = append(out, a)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("team: artifacts of task %d: %w", id, err)
		}
	}
	return out, nil
}
