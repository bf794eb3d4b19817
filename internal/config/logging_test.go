package config

import (
	"strings"
	"testing"
)

// TestLoggingRejected: a bad level or rotation names its key, the value
// and what is accepted; good ones load.
func TestLoggingRejected(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"logging: {level: verbose}\n", `logging.level: "verbose" is not accepted; use debug, info, warn or error`},
		{"logging: {file_max_mb: -1}\n", `logging.file_max_mb: "-1" is not accepted`},
		{"logging: {file_keep: 1000}\n", `logging.file_keep: "1000" is not accepted`},
	} {
		if _, _, err := loadYAML(t, tc.yaml); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	l, _, err := loadYAML(t, "logging: {level: debug, file_max_mb: 20, file_keep: 5}\n")
	if err != nil || l.Config.Logging != (Logging{Level: "debug", FileMaxMB: 20, FileKeep: 5}) {
		t.Errorf("%+v %v", l, err)
	}
}
