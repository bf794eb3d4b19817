package kb

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqldb"
	"github.com/hermes-go/hermes/internal/sqltext"
)

// filter is a Query's restrictions as SQL over the aliases b
// (kb_bases), s (kb_sources) and c (kb_chunks) in d's dialect: a
// condition that starts with AND, or "" when nothing is restricted, and
// its arguments.
func (q Query) filter(d sqldb.Dialect) (string, []any) {
	var where []string
	var args []any
	switch {
	case q.KB != "":
		where, args = append(where, "b.name = ?"), append(args, q.KB)
	case len(q.Within) > 0:
		where = append(where, "b.name IN (?"+strings.Repeat(",?", len(q.Within)-1)+")")
		for _, name := range q.Within {
			args = append(args, name)
		}
	}
	if q.SourcePrefix != "" {
		prefix := sqltext.Clean(d, q.SourcePrefix)
		where, args = append(where, "substr(s.uri, 1, ?) = ?"), append(args, utf8.RuneCountInString(prefix), prefix)
	}
	if q.Tag != "" {
		where, args = append(where, sqltext.Contains(d, "s.tags", "?")), append(args, ","+q.Tag+",")
	}
	if len(where) == 0 {
		return "", nil
	}
	return " AND " + strings.Join(where, " AND "), args
}

// check validates q's names, and that a knowledge base it names is one
// of Within when that is set.
func (q Query) check() error {
	if q.KB != "" {
		if err := CheckName(q.KB); err != nil {
			return err
		}
		if len(q.Within) > 0 && !slices.Contains(q.Within, q.KB) {
			return fmt.Errorf("%w: %q is not one of the knowledge bases this search may use (%s)", ErrNotAllowed, q.KB, strings.Join(q.Within, ", "))
		}
	}
	for _, name := range q.Within {
		if err := CheckName(name); err != nil {
			return err
		}
	}
	if q.Tag != "" {
		if err := CheckTag(q.Tag); err != nil {
			return err
		}
	}
	return nil
}
