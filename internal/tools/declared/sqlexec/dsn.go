package sqlexec

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// The canonical driver names; Normalize maps the aliases people write to
// these.
const (
	driverSQLite   = "sqlite"
	driverPostgres = "postgres"
	driverMySQL    = "mysql"
)

// NormalizeDriver returns the canonical name of a connection's driver
// (sqlite, postgres or mysql), accepting sqlite3, postgresql and pg too.
func NormalizeDriver(driver string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(driver)) {
	case "sqlite", "sqlite3":
		return driverSQLite, nil
	case "postgres", "postgresql", "pg":
		return driverPostgres, nil
	case "mysql":
		return driverMySQL, nil
	}
	return "", fmt.Errorf("driver %q is not supported; use sqlite, postgres or mysql", driver)
}

// expandEnv resolves ${NAME} and ${NAME:-default} in s through env. An
// unset variable without a default is an error naming it, since a DSN
// with a hole in it would fail later with a far less helpful message. A
// lone $ is left alone: passwords may contain one.
func expandEnv(s string, env func(string) (string, bool)) (string, error) {
	var out strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			out.WriteString(s)
			return out.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in DSN")
		}
		out.WriteString(s[:i])
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validEnvName(name) {
			return "", fmt.Errorf("${%s} in DSN is not a variable reference; write ${NAME} or ${NAME:-default}", expr)
		}
		v, ok := "", false
		if env != nil {
			v, ok = env(name)
		}
		switch {
		case hasDef && (!ok || v == ""):
			v = def
		case !ok:
			return "", fmt.Errorf("environment variable %s used in the DSN is not set", name)
		}
		out.WriteString(v)
		s = s[i+end+1:]
	}
}

// validEnvName reports whether name is a shell-style variable name.
func validEnvName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c != '_' && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// sqlitePath turns a sqlite DSN into an absolute file path: a "file:"
// prefix and any query are dropped (hermes sets the parameters itself),
// ~ is the home directory, and a relative path is relative to baseDir,
// the directory of the file that declares the connection.
func sqlitePath(dsn, baseDir string) (string, error) {
	p := strings.TrimPrefix(dsn, "file:")
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if p == "" || p == ":memory:" {
		return "", fmt.Errorf("a sqlite DSN must be a database file path, got %q", dsn)
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand ~ in %q: %w", dsn, err)
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	return filepath.Clean(p), nil
}

// sqliteDSN is the modernc.org/sqlite name for path. The writer uses WAL,
// synchronous NORMAL and BEGIN IMMEDIATE, as hermes's own session store
// does, so a write transaction meets lock contention at BEGIN under the
// busy timeout rather than failing at its first write. The reader opens
// the file with mode=ro (every write fails with SQLITE_READONLY, and a
// missing file is not created) and query_only as a second guard; it sets
// no journal mode, which would be a write.
func sqliteDSN(path string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Path: path}
	return "file:" + u.EscapedPath() + "?" + q.Encode()
}

// Masking secrets in DSNs: the password of a URL's user info, of a
// key=value string and of a MySQL user:password@ prefix.
var (
	urlPassword = lazy.Regexp{Expr: `(://[^:/@\s]*):[^@\s]*@`}
	kvPassword  = lazy.Regexp{Expr: `(?i)\b(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`}
	urlQueryPW  = lazy.Regexp{Expr: `(?i)([?&]password=)[^&\s]*`}
)

// mask is the text of a DSN that is safe to show: passwords are replaced
// by xxxxx. It works on the DSN as written, so the values of ${VAR}
// references never appear; the references themselves are set aside
// while masking, so the colon of ${USER:-app} is not taken for the one
// before a password.
func mask(dsn, driver string) string {
	var refs []string
	s := envRef.Get().ReplaceAllStringFunc(dsn, func(ref string) string {
		refs = append(refs, ref)
		return "\x01" + strconv.Itoa(len(refs)-1) + "\x01"
	})
	s = urlPassword.Get().ReplaceAllString(s, "$1:xxxxx@")
	s = kvPassword.Get().ReplaceAllString(s, "${1}xxxxx")
	s = urlQueryPW.Get().ReplaceAllString(s, "${1}xxxxx")
	if driver == driverMySQL {
		if from, to, ok := mysqlPassword(s); ok {
			s = s[:from] + "xxxxx" + s[to:]
		}
	}
	return refToken.Get().ReplaceAllStringFunc(s, func(tok string) string {
		i, _ := strconv.Atoi(strings.Trim(tok, "\x01"))
		return refs[i]
	})
}

// envRef matches a ${...} reference; refToken what mask puts in its place.
var (
	envRef   = lazy.Regexp{Expr: `\$\{[^}]*\}`}
	refToken = lazy.Regexp{Expr: "\x01[0-9]+\x01"}
)

// secrets lists the strings of a resolved DSN that must never reach a
// message: the DSN itself and its password, however it is written.
func secrets(resolved, driver string) []string {
	out := []string{resolved}
	if u, err := url.Parse(resolved); err == nil && u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			out = append(out, pw, url.QueryEscape(pw), url.PathEscape(pw))
		}
	}
	for _, m := range kvPassword.Get().FindAllStringSubmatch(resolved, -1) {
		out = append(out, strings.Trim(m[2], "'"))
	}
	for _, m := range urlQueryPW.Get().FindAllStringIndex(resolved, -1) {
		_, v, _ := strings.Cut(resolved[m[0]:m[1]], "=")
		out = append(out, v)
	}
	if driver == driverMySQL {
		if from, to, ok := mysqlPassword(resolved); ok {
			out = append(out, resolved[from:to])
		}
	}
	kept := out[:0]
	for _, s := range out {
		if len(s) >= 3 {
			kept = append(kept, s)
		}
	}
	slices.SortFunc(kept, func(a, b string) int { return len(b) - len(a) })
	return kept
}

// mysqlPassword finds the password of a MySQL DSN,
// user:password@tcp(host)/db: it runs from the first colon to the last @
// before the database name, as the driver parses it.
func mysqlPassword(dsn string) (from, to int, ok bool) {
	if strings.Contains(dsn, "://") {
		return 0, 0, false
	}
	head := dsn
	if i := strings.LastIndexByte(head, '/'); i >= 0 {
		head = head[:i]
	}
	at := strings.LastIndexByte(head, '@')
	if at < 0 {
		return 0, 0, false
	}
	colon := strings.IndexByte(head[:at], ':')
	if colon < 0 {
		return 0, 0, false
	}
	return colon + 1, at, true
}

// redact replaces every secret in msg by xxxxx; secrets comes longest
// first, so a DSN is hidden whole before its password is.
func redact(msg string, secrets []string) string {
	for _, s := range secrets {
		msg = strings.ReplaceAll(msg, s, "xxxxx")
	}
	return msg
}
