// Package writeguard decides which files the file tools may change and
// which they may not read. Those tools act without asking for approval,
// so Guard keeps writes away from hermes's own state ($HERMES_HOME),
// credentials, the start-up files of shells and git, and system account
// databases, and, when HERMES_WRITE_SAFE_ROOT is set, inside the
// directories it names; and it keeps reads away from .env files and
// hermes's own /proc entries, which hold secrets. Its user is package
// tools/files.
package writeguard
