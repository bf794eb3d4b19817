// Package storage moves hermes's state between its backends and checks
// it: Migrate copies an embedded home's state.db into PostgreSQL, so a
// team that outgrows one machine keeps its history; Compare verifies a
// copy by row counts and checksums; Check looks for damage and malformed
// histories in either backend alone.
//
// Tables and columns are found by introspection, not listed here: each
// PostgreSQL schema mirrors its SQLite tables by name, so a store that
// gains a PostgreSQL schema is migrated without a change to this
// package. Where a PostgreSQL table keeps a column under another name or
// in another form, mapping.go says how to carry it over.
package storage

import (
	"errors"
	"fmt"
)

// ErrMismatch is what Compare and Migrate return, wrapped with the
// tables it concerns, when the destination does not hold what the
// source holds.
var ErrMismatch = errors.New("storage: copy differs from state.db")

// ErrProblems is what Check returns, wrapped with a count, when it found
// problems; the report lists them.
var ErrProblems = errors.New("storage: problems found")

// DefaultBatch is how many rows Migrate copies per transaction unless
// told otherwise: large enough that the commit is a small share of a
// batch, small enough that a batch of long messages stays a few MB.
const DefaultBatch = 1000

// Options tune Migrate. The zero value is ready to use.
type Options struct {
	// Batch is how many rows each transaction copies; zero means
	// DefaultBatch.
	Batch int
	// Progress, when set, is called after each committed batch and when
	// a table is finished.
	Progress func(Progress)
	// Skip names state.db tables to leave behind, knowingly: without
	// it, a table holding rows that PostgreSQL has no table for stops
	// the migration.
	Skip []string
}

// Progress is where a migration stands in one table.
type Progress struct {
	// Table is the table being copied.
	Table string
	// Copied is how many of its rows the destination holds so far.
	Copied int64
	// Total is how many rows the source table holds.
	Total int64
	// Done is set once the table is complete.
	Done bool
}

// Report is what Migrate, Compare or Check found, table by table.
type Report struct {
	// Tables are the tables looked at, in the order they were copied
	// (Migrate, Compare) or by name (Check).
	Tables []Table
	// Problems are what Check found wrong; empty when all is well.
	Problems []Problem
}

// Table is one table's part of a report.
type Table struct {
	// Name is the table's name, the same in both databases.
	Name string
	// Copied is how many rows this run of Migrate copied; zero for a
	// table an earlier run finished.
	Copied int64
	// Sanitized is how many rows had text PostgreSQL refuses (NUL bytes,
	// invalid UTF-8) stored with U+FFFD in its place, over every run.
	Sanitized int64
	// Dropped names source columns the destination has no column for.
	Dropped []string
	// Skipped, when set, says why the table was not copied.
	Skipped string
	// Source and Dest are the table's count and checksum on each side;
	// Check fills Source only.
	Source, Dest Sum
}

// Sum is a table's row count and checksum: the sum of a SHA-256 of
// each row's copied columns in a canonical encoding, so it does not
// depend on the order rows are read in, and a missing, changed or
// duplicated row changes it.
type Sum struct {
	Rows     int64
	Checksum string
}

// Match reports whether both sides hold the same rows.
func (t Table) Match() bool { return t.Skipped != "" || t.Source == t.Dest }

// Problem is one thing Check found wrong.
type Problem struct {
	// Kind names the check that found it: "integrity", "foreign_key",
	// "schema_version", "message_count", "orphan_messages",
	// "tool_result_without_call".
	Kind string
	// Detail says what is wrong and where.
	Detail string
}

func (p Problem) String() string { return p.Kind + ": " + p.Detail }

// mismatch is ErrMismatch naming the tables of r whose sides differ, or
// nil when none does.
func mismatch(r Report) error {
	var names []string
	for _, t := range r.Tables {
		if !t.Match() {
			names = append(names, fmt.Sprintf("%s (state.db %d rows %s, postgres %d rows %s)",
				t.Name, t.Source.Rows, t.Source.Checksum, t.Dest.Rows, t.Dest.Checksum))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %v", ErrMismatch, names)
}
