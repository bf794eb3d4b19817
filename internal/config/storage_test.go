package config

import (
	"strings"
	"testing"
)

// TestStorageRejected: a bad driver or DSN names its key and what is
// accepted, and never prints the password; good ones load.
func TestStorageRejected(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"storage: {driver: mysql}\n", `storage.driver: "mysql" is not accepted; use sqlite or postgres`},
		{"storage: {driver: postgres}\n", `storage.dsn: "(not set)" is required with storage.driver: postgres`},
		{"storage: {driver: postgres, dsn: 'mysql-hunter2-host-name-long'}\n", `storage.dsn: "mys…long" is not accepted`},
		{"storage: {dsn: 'postgres://u:hunter2@db/h'}\n", `storage.dsn: "(set)" is only read with storage.driver: postgres`},
		{"storage: {driver: postgres, dsn: 'postgres://db/h', max_conns: -2}\n", `storage.max_conns: "-2" is not accepted`},
	} {
		_, _, err := loadYAML(t, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%q: the error shows the password: %v", tc.yaml, err)
		}
	}
	l, _, err := loadYAML(t, "storage: {driver: postgres, dsn: 'postgres://hermes:pw@db:5432/hermes', max_conns: 8}\n")
	if err != nil || l.Config.Storage.DriverOrDefault() != StoragePostgres || string(l.Config.Storage.DSN) != "postgres://hermes:pw@db:5432/hermes" {
		t.Errorf("%+v %v", l.Config.Storage, err)
	}
	if l, _, err := loadYAML(t, ""); err != nil || l.Config.Storage.DriverOrDefault() != StorageSQLite {
		t.Errorf("default storage: %+v %v", l.Config.Storage, err)
	}
}
