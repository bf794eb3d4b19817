package storage

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// renamed is the destination name of a source column that a PostgreSQL
// table keeps under another name: the session store's PostgreSQL tables
// predate the rule that they mirror SQLite's names. It is used only
// when the destination lacks the source's own name, so a schema that
// mirrors SQLite is copied by name.
func renamed(table, col string) string {
	switch table + "." + col {
	case "sessions.estimated_cost_usd":
		return "cost_usd"
	case "messages.token_count":
		return "tokens"
	case "messages.timestamp":
		return "created_at"
	case "session_leases.expires_at":
		return "until_us"
	}
	return ""
}

// derived is a destination column made from several source columns.
type derived struct {
	uses []string
	from func(src []any) any
}

// derivedColumns are the destination columns of table that no single
// source column holds. The session store keeps a message's text in
// SQLite as content (its text) plus parts only when the text alone
// cannot restore them, and in PostgreSQL as parts always plus
// search_text (text, tool calls and tool name, one per line): both are
// made here as session/postgres makes them when it appends.
func derivedColumns(table string, src map[string]int, dst map[string]dstColumn) map[string]derived {
	_, srcContent := src["content"]
	_, dstContent := dst["content"]
	_, dstSearch := dst["search_text"]
	if table != "messages" || !srcContent || dstContent || !dstSearch {
		return nil
	}
	col := func(name string) int {
		if i, ok := src[name]; ok {
			return i
		}
		return -1
	}
	content, parts, calls, tool := col("content"), col("parts"), col("tool_calls"), col("tool_name")
	at := func(r []any, i int) any {
		if i < 0 {
			return nil
		}
		return r[i]
	}
	return map[string]derived{
		"parts": {uses: []string{"content", "parts"}, from: func(r []any) any {
			if p := at(r, parts); p != nil {
				return p
			}
			if c := at(r, content); c != nil {
				return textParts(asString(c))
			}
			return nil
		}},
		"search_text": {uses: []string{"content", "tool_calls", "tool_name"}, from: func(r []any) any {
			var lines []string
			for _, i := range []int{content, calls, tool} {
				if s := asString(at(r, i)); s != "" {
					lines = append(lines, s)
				}
			}
			return strings.Join(lines, "\n")
		}},
	}
}

// textParts is the JSON of one text part, as session/postgres stores a
// text message's parts.
func textParts(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode([]llm.Part{llm.TextPart(s)}) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// asString is a source value as text; NULL is "".
func asString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// planTable decides how table is copied: which destination column takes
// which source value, how batches advance, and which columns wait for a
// second pass.
func planTable(ctx context.Context, src, dst *sql.DB, table string, rowid bool) (*tablePlan, error) {
	scols, fks, err := sourceColumns(ctx, src, table)
	if err != nil {
		return nil, err
	}
	dcols, err := destColumns(ctx, dst, table)
	if err != nil {
		return nil, err
	}
	t := &tablePlan{name: table, rowid: rowid}
	srcIdx := map[string]int{}
	var pk []srcColumn
	for i, c := range scols {
		t.srcCols = append(t.srcCols, c.name)
		srcIdx[c.name] = i
		if c.pk > 0 {
			pk = append(pk, c)
		}
	}
	slices.SortFunc(pk, func(a, b srcColumn) int { return a.pk - b.pk })
	dstByName := map[string]dstColumn{}
	for _, c := range dcols {
		dstByName[c.name] = c
	}
	fromSrc := map[string]int{} // destination column → source index
	for i, c := range scols {
		switch name := renamed(table, c.name); {
		case hasColumn(dstByName, c.name):
			fromSrc[c.name] = i
		case name != "" && hasColumn(dstByName, name):
			fromSrc[name] = i
		}
	}
	derive := derivedColumns(table, srcIdx, dstByName)
	used := map[string]bool{}
	for _, c := range dcols {
		if c.generated {
			continue
		}
		cp := colPlan{name: c.name, typ: c.typ, notNull: c.notNull}
		if d, ok := derive[c.name]; ok {
			cp.from = d.from
			for _, u := range d.uses {
				used[u] = true
			}
		} else if i, ok := fromSrc[c.name]; ok {
			cp.from = func(r []any) any { return r[i] }
			used[scols[i].name] = true
		} else if c.notNull && !c.hasDefault {
			return nil, fmt.Errorf("storage: postgres table %s has column %s (NOT NULL, no default) that no column of state.db's %s fills", table, c.name, table)
		} else {
			continue
		}
		t.overriding = t.overriding || c.identityAlways
		t.cols = append(t.cols, cp)
	}
	for _, c := range scols {
		if !used[c.name] {
			t.dropped = append(t.dropped, c.name)
		}
	}
	for _, c := range pk {
		t.key = append(t.key, c.name)
		if i := t.colIndex(c.name, fromSrc, scols); i >= 0 {
			t.dstKey = append(t.dstKey, i)
		}
	}
	if !rowid && len(t.key) == 0 {
		return nil, fmt.Errorf("storage: state.db table %s has neither a rowid nor a primary key to copy it in batches by", table)
	}
	for _, fk := range fks {
		if fk.table != table {
			if !slices.Contains(t.parents, fk.table) {
				t.parents = append(t.parents, fk.table)
			}
			continue
		}
		if i := t.colIndex(fk.from, fromSrc, scols); i >= 0 {
			t.selfRefs = append(t.selfRefs, i)
		}
	}
	if len(t.selfRefs) > 0 && len(t.dstKey) != len(t.key) {
		return nil, fmt.Errorf("storage: postgres table %s references itself but lacks state.db's primary key columns %v", table, t.key)
	}
	return t, nil
}

// hasColumn reports whether the destination has a column by that name
// that can be written.
func hasColumn(dst map[string]dstColumn, name string) bool {
	c, ok := dst[name]
	return ok && !c.generated
}

// colIndex is the index in t.cols of the destination column that takes
// source column name; -1 when none does.
func (t *tablePlan) colIndex(name string, fromSrc map[string]int, scols []srcColumn) int {
	for dst, i := range fromSrc {
		if scols[i].name != name {
			continue
		}
		for j, c := range t.cols {
			if c.name == dst {
				return j
			}
		}
	}
	return -1
}
