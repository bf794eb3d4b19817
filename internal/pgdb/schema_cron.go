package pgdb

// cronSchema is the cron store's tables.
func cronSchema() schema {
	return schema{name: "cron", migrations: []string{}}
}
