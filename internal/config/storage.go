package config

import (
	"fmt"
	"strings"
)

// Storage says where hermes keeps its state (storage: in config.yaml).
// The default is the embedded state.db under HERMES_HOME, which needs
// nothing running; PostgreSQL lets several replicas of hermes serve
// share one state.
type Storage struct {
	// Driver is sqlite (the default) or postgres.
	Driver string `yaml:"driver"`
	// DSN is the PostgreSQL database, a postgres:// URL or a key=value
	// string as libpq reads them. It usually holds a password, so it is
	// a Secret; write it as ${DATABASE_URL} to keep it in .env, or set
	// HERMES_STORAGE_DSN.
	DSN Secret `yaml:"dsn"`
	// MaxConns bounds each process's connections to PostgreSQL (16).
	MaxConns int `yaml:"max_conns"`
}

// Storage drivers.
const (
	StorageSQLite   = "sqlite"
	StoragePostgres = "postgres"
)

// DriverOrDefault is Driver, sqlite when unset.
func (s Storage) DriverOrDefault() string {
	if s.Driver == "" {
		return StorageSQLite
	}
	return s.Driver
}

// validateStorage checks storage:.
func validateStorage(c *Config, where func(key string) string) []error {
	s := c.Storage
	var errs []error
	switch s.Driver {
	case "", StorageSQLite:
		if s.DSN != "" {
			errs = append(errs, badValue(where("storage.dsn"), "storage.dsn", "(set)", "is only read with storage.driver: postgres; state.db lives under HERMES_HOME"))
		}
	case StoragePostgres:
		dsn := strings.TrimSpace(string(s.DSN))
		switch {
		case dsn == "":
			errs = append(errs, badValue(where("storage.dsn"), "storage.dsn", "(not set)", "is required with storage.driver: postgres; give a postgres:// URL, e.g. postgres://hermes@db:5432/hermes"))
		case !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") && !strings.Contains(dsn, "="):
			errs = append(errs, badValue(where("storage.dsn"), "storage.dsn", Redact(dsn), "is not accepted; give a postgres:// URL or a key=value string such as host=db dbname=hermes"))
		}
	default:
		errs = append(errs, badValue(where("storage.driver"), "storage.driver", s.Driver, "is not accepted; use sqlite or postgres"))
	}
	if s.MaxConns < 0 || s.MaxConns > 1000 {
		errs = append(errs, badValue(where("storage.max_conns"), "storage.max_conns", fmt.Sprint(s.MaxConns), "is not accepted; give 1 to 1000, or 0 for the default 16"))
	}
	return errs
}
