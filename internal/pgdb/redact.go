package pgdb

import (
	"net/url"
	"regexp"
	"strings"
)

// keywordPassword is a password in a key=value DSN, quoted or not.
func keywordPassword() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
}

// Redact is dsn with its password replaced by "xxxxx", for errors, logs
// and `hermes doctor`.
func Redact(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "postgres://(unparsable DSN)"
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	return keywordPassword().ReplaceAllString(dsn, "${1}xxxxx")
}
