package pgdb

// auditSchema is the audit store's tables.
func auditSchema() schema {
	return schema{name: "audit", migrations: []string{}}
}
