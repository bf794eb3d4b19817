package sqlexec

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Check validates a query declaration for a driver when the tools file is
// loaded, so mistakes surface there rather than at the model's first
// call: the block needs a query, read_only or both (a fixed query marked
// read_only must then be a reading statement); a fixed query is one
// statement with exactly one arg per placeholder (? for sqlite and mysql,
// $1..$N for postgres, counting none inside literals or comments); a
// read_only block without a query takes no args; max_rows is not
// negative.
func Check(q Query, driver string) error {
	d, err := NormalizeDriver(driver)
	if err != nil {
		return err
	}
	if q.MaxRows < 0 {
		return fmt.Errorf("max_rows is %d; use a positive row cap, or 0 for %d", q.MaxRows, DefaultMaxRows)
	}
	stmt := strings.TrimSpace(q.Query)
	if stmt == "" {
		if !q.ReadOnly {
			return errors.New("needs a query, or read_only: true to let the model write SELECT statements")
		}
		if len(q.Args) > 0 {
			return fmt.Errorf("has %d args but no query; a read_only tool without a query takes the model's statement from its %q argument and binds no args", len(q.Args), q.sqlArg())
		}
		return nil
	}
	c := code(stmt, d)
	if moreThanOne(c) {
		return fmt.Errorf("query %q holds more than one statement; declare one statement per tool", stmt)
	}
	if q.ReadOnly {
		if err := checkRead(c, d); err != nil {
			return fmt.Errorf("query %q is marked read_only: %w", stmt, err)
		}
	}
	n, err := placeholders(c, d)
	if err != nil {
		return fmt.Errorf("query %q: %w", stmt, err)
	}
	if n != len(q.Args) {
		return fmt.Errorf("query %q has %d placeholder(s) (%s) but %d args; give one arg per placeholder, in order", stmt, n, placeholderForm(d), len(q.Args))
	}
	return nil
}

// sqlArg is the name of the argument holding the model's statement.
func (q Query) sqlArg() string {
	if q.SQLArg == "" {
		return "sql"
	}
	return q.SQLArg
}

// placeholderForm says how the driver's placeholders look.
func placeholderForm(driver string) string {
	if driver == driverPostgres {
		return "$1, $2, ..."
	}
	return "?"
}

// placeholders counts the placeholders of blanked code: each ? for
// sqlite and mysql; for postgres the distinct $N, which must run 1..N
// without a gap ($1 may appear twice, but $2 without $1 is a mistake).
func placeholders(code, driver string) (int, error) {
	if driver != driverPostgres {
		n := strings.Count(code, "?")
		if driver == driverSQLite {
			for i := 0; i+1 < len(code); i++ {
				if code[i] == '?' && code[i+1] >= '0' && code[i+1] <= '9' {
					return 0, errors.New("numbered ?N placeholders are not supported; use plain ? in argument order")
				}
			}
		}
		return n, nil
	}
	seen := map[int]bool{}
	most := 0
	for i := 0; i < len(code); i++ {
		if code[i] != '$' || (i > 0 && isIdent(code[i-1])) {
			continue
		}
		j := i + 1
		for j < len(code) && code[j] >= '0' && code[j] <= '9' {
			j++
		}
		if j == i+1 {
			continue
		}
		n, err := strconv.Atoi(code[i+1 : j])
		if err != nil || n == 0 {
			return 0, fmt.Errorf("placeholder %s is not valid; number them from $1", code[i:j])
		}
		seen[n] = true
		most = max(most, n)
		i = j - 1
	}
	for k := 1; k <= most; k++ {
		if !seen[k] {
			return 0, fmt.Errorf("placeholders skip $%d (the highest is $%d); number them $1..$N without gaps", k, most)
		}
	}
	return most, nil
}

// readKeywords are the keywords a read_only statement may start with on
// every driver.
var readKeywords = []string{"SELECT", "WITH", "VALUES", "EXPLAIN"}

// readPragma reports the SQLite pragmas that only report; a pragma that
// sets something (query_only = 0 among them) is refused.
func readPragma(name string) bool {
	switch name {
	case "TABLE_INFO", "TABLE_XINFO", "TABLE_LIST",
		"INDEX_LIST", "INDEX_INFO", "INDEX_XINFO",
		"FOREIGN_KEY_LIST", "FOREIGN_KEY_CHECK",
		"INTEGRITY_CHECK", "QUICK_CHECK",
		"DATABASE_LIST", "COLLATION_LIST", "FUNCTION_LIST",
		"MODULE_LIST", "PRAGMA_LIST", "COMPILE_OPTIONS",
		"PAGE_COUNT", "PAGE_SIZE", "FREELIST_COUNT",
		"ENCODING", "USER_VERSION", "SCHEMA_VERSION",
		"APPLICATION_ID", "JOURNAL_MODE", "DATA_VERSION":
		return true
	}
	return false
}

// pragmaTakesArgument reports the pragmas that may take a parenthesized
// argument (a table or index name, or a row limit for the checks); the
// others set a value when given one.
func pragmaTakesArgument(name string) bool {
	switch name {
	case "TABLE_INFO", "TABLE_XINFO", "INDEX_LIST",
		"INDEX_INFO", "INDEX_XINFO", "FOREIGN_KEY_LIST",
		"FOREIGN_KEY_CHECK", "INTEGRITY_CHECK", "QUICK_CHECK":
		return true
	}
	return false
}

// acceptedRead says, for a message, what a read_only statement may be.
func acceptedRead(driver string) string {
	s := "one SELECT, WITH, VALUES or EXPLAIN statement"
	switch driver {
	case driverMySQL:
		s += " (or SHOW)"
	case driverSQLite:
		s += " (or a PRAGMA that only reports, such as PRAGMA table_info(t))"
	}
	return s
}

// checkRead reports why blanked code is not a statement a read_only tool
// runs. It screens for the model's benefit; the read-only transaction or
// handle is what actually prevents writes.
func checkRead(code, driver string) error {
	if strings.TrimSpace(strings.ReplaceAll(code, ";", " ")) == "" {
		return fmt.Errorf("the statement is empty; send %s", acceptedRead(driver))
	}
	if moreThanOne(code) {
		return fmt.Errorf("send %s at a time, without a second statement after ';'", acceptedRead(driver))
	}
	w := words(code)
	first := w[0]
	switch {
	case slices.Contains(readKeywords, first):
	case first == "SHOW" && driver == driverMySQL:
	case first == "PRAGMA" && driver == driverSQLite:
		return checkPragma(code, w)
	default:
		return fmt.Errorf("%s statements are not accepted here; send %s", first, acceptedRead(driver))
	}
	if driver == driverMySQL && (slices.Contains(w, "OUTFILE") || slices.Contains(w, "DUMPFILE")) {
		return errors.New("SELECT ... INTO OUTFILE/DUMPFILE writes a file and is not accepted here")
	}
	return nil
}

// checkPragma accepts PRAGMA [schema.]name and, for pragmas that take
// one, PRAGMA [schema.]name(argument); never PRAGMA name = value.
func checkPragma(code string, w []string) error {
	if strings.Contains(code, "=") {
		return errors.New("PRAGMA name = value sets something; only reporting pragmas are accepted here")
	}
	if len(w) < 2 {
		return errors.New("PRAGMA needs a name, such as PRAGMA table_info(t)")
	}
	name := w[1]
	dot, paren := strings.IndexByte(code, '.'), strings.IndexByte(code, '(')
	if dot >= 0 && (paren < 0 || dot < paren) && len(w) > 2 {
		name = w[2] // PRAGMA schema.name
	}
	if !readPragma(name) {
		return fmt.Errorf("PRAGMA %s is not accepted here; reporting pragmas such as table_info, index_list, foreign_key_list and table_list are", strings.ToLower(name))
	}
	if strings.Contains(code, "(") && !pragmaTakesArgument(name) {
		return fmt.Errorf("PRAGMA %s(...) sets a value; send PRAGMA %s without an argument to read it", strings.ToLower(name), strings.ToLower(name))
	}
	return nil
}

// returnsRows reports whether blanked code is a statement that answers
// with rows (so it runs with QueryContext): a reading statement, or a
// write with RETURNING.
func returnsRows(code string) bool {
	switch firstWord(code) {
	case "SELECT", "WITH", "VALUES", "TABLE", "PRAGMA", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "CALL":
		return true
	}
	return hasWord(code, "RETURNING")
}
