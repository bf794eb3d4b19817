package sqlexec

// Connection is a named database a declared sql tool talks to, declared
// under the top-level connections: key of a tools file or config.yaml:
//
//	connections:
//	  orders_db: {driver: sqlite, dsn: ./data/orders.db}
//	  warehouse: {driver: postgres, dsn: "${WAREHOUSE_DSN}"}
//
// The DSN may refer to ${ENV} variables, resolved when the connection is
// opened; the resolved DSN is a secret and never shown.
type Connection struct {
	// Driver is sqlite, postgres or mysql.
	Driver string `yaml:"driver" json:"driver"`
	// DSN is a file path for sqlite (relative to the file that declares
	// it), a postgres:// URL or key=value string, or a MySQL DSN.
	DSN string `yaml:"dsn" json:"dsn"`
	// MaxOpen bounds the pool; zero means 4.
	MaxOpen int `yaml:"max_open,omitempty" json:"max_open,omitempty"`
}

// Query is the sql: block of a declared tool: either a fixed query whose
// placeholders are bound from the tool's arguments, or, with ReadOnly,
// free-form SELECT statements the model writes, run in a read-only
// transaction.
type Query struct {
	// Connection names an entry of connections:.
	Connection string `yaml:"connection" json:"connection"`
	// Query is the fixed statement, with the driver's placeholders (? for
	// sqlite and mysql, $1 for postgres). Empty when ReadOnly lets the
	// model write the statement.
	Query string `yaml:"query,omitempty" json:"query,omitempty"`
	// Args are templates, one per placeholder, filled from the tool's
	// arguments ("{{.user_id}}"); a template that renders empty binds NULL.
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`
	// ReadOnly lets the model send its own SELECT in the argument named by
	// SQLArg; it runs in a read-only transaction.
	ReadOnly bool `yaml:"read_only,omitempty" json:"read_only,omitempty"`
	// SQLArg is the argument holding the model's statement; "sql" when
	// empty.
	SQLArg string `yaml:"sql_arg,omitempty" json:"sql_arg,omitempty"`
	// MaxRows caps the rows returned; zero means 200.
	MaxRows int `yaml:"max_rows,omitempty" json:"max_rows,omitempty"`
}
