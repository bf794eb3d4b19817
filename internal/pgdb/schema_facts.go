package pgdb

// factsSchema is the facts store's tables.
func factsSchema() schema {
	return schema{name: "facts", migrations: []string{}}
}
