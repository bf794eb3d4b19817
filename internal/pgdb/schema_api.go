package pgdb

// apiSchema is the API's table of requests sent with an Idempotency-Key
// (api/apistore).
func apiSchema() schema {
	return schema{name: "api", migrations: []string{
		`CREATE TABLE api_requests (
	caller      text NOT NULL,
	key         text NOT NULL,
	fingerprint text NOT NULL,
	holder      text NOT NULL,
	lease_until bigint NOT NULL,
	session_id  text NOT NULL DEFAULT '',
	base_id     bigint NOT NULL DEFAULT -1,
	done        bigint NOT NULL DEFAULT 0,
	status      bigint NOT NULL DEFAULT 0,
	body        bytea,
	created_at  bigint NOT NULL,
	PRIMARY KEY (caller, key)
);
CREATE INDEX api_requests_created ON api_requests (created_at);`,
	}}
}
