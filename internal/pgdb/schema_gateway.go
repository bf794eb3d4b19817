package pgdb

// gatewaySchema is the gateway store's tables.
func gatewaySchema() schema {
	return schema{name: "gateway", migrations: []string{}}
}
