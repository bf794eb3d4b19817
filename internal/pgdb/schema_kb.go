package pgdb

// kbSchema is the kb store's tables.
func kbSchema() schema {
	return schema{name: "kb", migrations: []string{}}
}
