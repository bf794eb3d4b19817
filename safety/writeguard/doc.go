// Package writeguard decides which files the file-writing tools may
// change. Those tools write without asking for approval, so Guard keeps
// them away from credentials, login shells' start-up files and system
// account databases, and, when HERMES_WRITE_SAFE_ROOT is set, inside the
// directories it names. Its user is package tools/files.
package writeguard
