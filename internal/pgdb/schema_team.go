package pgdb

// teamSchema is the team store's tables.
func teamSchema() schema {
	return schema{name: "team", migrations: []string{}}
}
