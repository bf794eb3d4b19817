package config

import (
	"fmt"
	"strings"
)

// Logging configures hermes's logs (logging: in config.yaml).
type Logging struct {
	// Level is the least severe level kept: debug, info, warn or error.
	// Empty keeps each command's own (warn on a terminal, info for
	// hermes serve and the chat's log file); --debug and
	// HERMES_LOG_LEVEL=debug win over it.
	Level string `yaml:"level"`
	// FileMaxMB is the size in MB past which $HERMES_HOME/logs/hermes.log
	// is rotated (5); FileKeep how many rotated files are kept (3).
	FileMaxMB int `yaml:"file_max_mb"`
	FileKeep  int `yaml:"file_keep"`
	// MaxSizeMB and BackupCount are Hermes Agent's names for FileMaxMB
	// and FileKeep, honoured when those are not set.
	MaxSizeMB   int `yaml:"max_size_mb"`
	BackupCount int `yaml:"backup_count"`
}

// Audit configures the audit log (audit: in config.yaml).
type Audit struct {
	// KeepDays is how many days of tool calls the audit log keeps
	// (365); hermes serve prunes older ones daily.
	KeepDays int `yaml:"keep_days"`
}

// KeepDaysOrDefault is KeepDays, 365 when unset.
func (a Audit) KeepDaysOrDefault() int {
	if a.KeepDays <= 0 {
		return 365
	}
	return a.KeepDays
}

// validateLogging checks logging: and audit:.
func validateLogging(c *Config, where func(key string) string) []error {
	var errs []error
	// Hermes writes Python's level names: INFO, WARNING, CRITICAL.
	switch lv := strings.ToLower(c.Logging.Level); lv {
	case "warning":
		c.Logging.Level = "warn"
	case "critical", "fatal":
		c.Logging.Level = "error"
	case "debug", "info", "warn", "error":
		c.Logging.Level = lv
	}
	if c.Logging.FileMaxMB == 0 {
		c.Logging.FileMaxMB = c.Logging.MaxSizeMB
	}
	if c.Logging.FileKeep == 0 {
		c.Logging.FileKeep = c.Logging.BackupCount
	}
	switch c.Logging.Level {
	case "", "debug", "info", "warn", "error":
	default:
		errs = append(errs, badValue(where("logging.level"), "logging.level", c.Logging.Level, "is not accepted; use debug, info, warn or error"))
	}
	if c.Logging.FileMaxMB < 0 || c.Logging.FileMaxMB > 1024 {
		errs = append(errs, badValue(where("logging.file_max_mb"), "logging.file_max_mb", fmt.Sprint(c.Logging.FileMaxMB), "is not accepted; give 1 to 1024 MB, or 0 for the default 5"))
	}
	if c.Audit.KeepDays < 0 || c.Audit.KeepDays > 36500 {
		errs = append(errs, badValue(where("audit.keep_days"), "audit.keep_days", fmt.Sprint(c.Audit.KeepDays), "is not accepted; give 1 to 36500 days, or 0 for the default 365"))
	}
	if c.Logging.FileKeep < 0 || c.Logging.FileKeep > 100 {
		errs = append(errs, badValue(where("logging.file_keep"), "logging.file_keep", fmt.Sprint(c.Logging.FileKeep), "is not accepted; give 1 to 100 files, or 0 for the default 3"))
	}
	return errs
}
