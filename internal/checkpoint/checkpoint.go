// Package checkpoint keeps what files held before a turn changed them, so
// the turn can be undone (/rollback, hermes checkpoints restore): before a
// tool first writes a file in a turn, its content is saved in a shadow
// store under $HERMES_HOME/checkpoints/, content-addressed, and when the
// turn ends a manifest records each file's content before it and the hash
// of what it left.
//
// A restore puts back the "before" of each file, and leaves alone, unless
// forced, a file whose content is no longer the turn's "after": someone
// changed it since, and restoring would lose their work. Files outside the
// turn's working directory are restored only when the caller says so,
// having shown them.
//
//	checkpoints/objects/ab/cdef…   file contents, by SHA-256
//	checkpoints/turns/<id>.json    one manifest a turn
package checkpoint

import (
	"errors"
	"time"
)

// Options bound the store; zero values take Hermes Agent's defaults.
type Options struct {
	// MaxSnapshots is how many turns are kept (20); older ones go.
	MaxSnapshots int
	// MaxFileBytes skips files larger than this (10 MB): datasets and
	// model weights are not what a turn is undone for.
	MaxFileBytes int64
	// MaxTotalBytes bounds the store (500 MB); the oldest turns go first.
	MaxTotalBytes int64
	// Retention drops turns older than this (7 days).
	Retention time.Duration
	// Now is the clock; nil is the real one.
	Now func() time.Time
}

// File is one file of a checkpoint: its content before the turn, kept,
// and the hash of what the turn left, by hash ("" when there was no
// file).
type File struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Mode   uint32 `json:"mode,omitempty"`
	// Skipped says why the file was not saved (too large), when it was
	// not.
	Skipped string `json:"skipped,omitempty"`
}

// Checkpoint is one turn's manifest.
type Checkpoint struct {
	ID      string    `json:"id"`
	Session string    `json:"session"`
	Workdir string    `json:"workdir"`
	Created time.Time `json:"created"`
	Files   []File    `json:"files"`
}

// ErrNotFound is returned for a checkpoint id that is not in the store.
var ErrNotFound = errors.New("checkpoint: not found")

// defaults fills o's zero values.
func (o Options) defaults() Options {
	if o.MaxSnapshots <= 0 {
		o.MaxSnapshots = 20
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 10 << 20
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = 500 << 20
	}
	if o.Retention <= 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
