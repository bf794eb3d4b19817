package shell

import "strings"

// The structural checks on containers, package managers and databases.

// subcommand returns the first operand of args after leading options
// (skipping the values of those in argShort and argLong) and what follows
// it: the "stop" of docker -H host stop web.
func subcommand(args []word, argShort, argLong string) (string, []word) {
	for i := 0; i < len(args); i++ {
		a := args[i].raw
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if !hasValue && matchLong(name, argLong) == name && name != "" {
				i++
			}
		case len(a) > 1 && a[0] == '-':
			if len(a) == 2 && strings.IndexByte(argShort, a[1]) >= 0 {
				i++
			}
		default:
			return args[i].text, args[i+1:]
		}
	}
	return "", nil
}

// Global options of docker and podman that take a value.
const dockerShort, dockerLong = "Hcl", "host context config log-level tlscacert tlscert tlskey url connection identity"

// dockerLifecycle fires when docker, podman or compose stop, kill, restart
// or remove containers, or remove and prune images, volumes and networks.
func dockerLifecycle(c *call) bool {
	sub, rest := subcommand(c.args, dockerShort, dockerLong)
	if c.name == "docker-compose" {
		sub, rest = "compose", c.args
	}
	switch sub {
	case "stop", "kill", "restart", "rm", "rmi", "pause":
		return true
	case "container", "image", "volume", "network", "system", "builder", "buildx", "compose":
		verb, _ := subcommand(rest, "fp", "file project-name env-file profile project-directory ansi progress parallel")
		switch verb {
		case "stop", "kill", "restart", "rm", "rmi", "remove", "prune", "down", "delete":
			return true
		}
	}
	return false
}

// dockerRemote fires when a docker or podman command is pointed at a
// daemon other than the local default: docker -H ssh://prod looks local
// and acts on remote infrastructure.
func dockerRemote(c *call) bool {
	for _, a := range c.assigns {
		name, _, _ := strings.Cut(a.text, "=")
		switch name {
		case "docker_host", "docker_context", "container_host", "container_connection":
			return true
		}
	}
	if c.name != "docker" && c.name != "podman" {
		return false
	}
	for _, a := range c.args {
		t := a.text
		if !strings.HasPrefix(t, "-") {
			sub, rest := subcommand(c.args, dockerShort, dockerLong)
			if sub == "context" && len(rest) > 0 && rest[0].text == "use" {
				return true
			}
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(t, "-"), "=")
		switch name {
		case "h", "host", "c", "context", "url", "connection", "identity", "r", "remote":
			return true
		}
	}
	return false
}

// packageUninstall fires on the uninstall verbs of the common package
// managers (npm uninstall -g removes software outside the project).
func packageUninstall(c *call) bool {
	args := c.args
	if c.name == "python" {
		if len(args) < 2 || args[0].text != "-m" || programName(args[1].text) != "pip" {
			return false
		}
		args = args[2:]
	}
	if c.name == "pacman" {
		o := getopt(args, "", "")
		return o.has("R") || o.hasLong("remove", 3)
	}
	verb, rest := subcommand(args, "C", "prefix registry cwd dir userconfig cache")
	if c.name == "yarn" && verb == "global" {
		verb, _ = subcommand(rest, "", "")
	}
	return verb != "" && strings.Contains(uninstallVerbs(c.name), " "+verb+" ")
}

// uninstallVerbs lists, space-delimited, a package manager's verbs that
// remove packages.
func uninstallVerbs(manager string) string {
	switch manager {
	case "npm":
		return " uninstall unlink remove rm r un "
	case "pnpm":
		return " uninstall remove rm un "
	case "yarn", "snap":
		return " remove "
	case "pip", "python", "gem", "cargo", "flatpak":
		return " uninstall "
	case "brew":
		return " uninstall remove rm "
	case "conda":
		return " remove uninstall "
	case "apt", "apt-get", "aptitude":
		return " remove purge autoremove "
	case "yum", "dnf":
		return " remove erase autoremove "
	}
	return ""
}

// sqlTexts returns the texts of a script that reach a database: the lines
// and here-documents of every pipeline with a database client in it
// (psql -c, echo … | mysql, sqlite3 db <<EOF, docker exec db psql), and
// lines that are SQL themselves (DROP TABLE users). SQL in a commit
// message or a file being written is left alone.
func sqlTexts(sv *scriptView) []sourced {
	var out []sourced
	start := 0
	for i, c := range sv.calls {
		if sep := c.cmd.sep; sep == "|" || sep == "|&" {
			continue
		}
		pipeline := sv.calls[start : i+1]
		start = i + 1
		reaches := false
		for _, m := range pipeline {
			reaches = reaches || databaseClient(m) || m.name == "drop" || m.name == "delete" || m.name == "truncate" && !strings.HasPrefix(m.line, "truncate -")
		}
		if !reaches {
			continue
		}
		for _, m := range pipeline {
			out = append(out, sourced{m.line, m.source()})
			if m.cmd.stdin != nil {
				out = append(out, sourced{m.cmd.stdin.text, m.source()})
			}
		}
	}
	return out
}

// databaseClient reports whether c runs a database shell, directly or in
// a container, pod or remote host.
func databaseClient(c *call) bool {
	switch c.name {
	case "psql", "pgcli", "mysql", "mariadb", "mycli", "sqlite3", "litecli", "sqlcmd", "duckdb", "clickhouse", "clickhouse-client",
		"cockroach", "cqlsh", "mongosh", "mongo", "usql", "trino", "presto", "snowsql", "bq", "spark-sql", "beeline", "hive", "influx", "osql", "isql":
		return true
	case "docker", "podman", "kubectl", "ssh":
		return anyWord(c.args, func(s string) bool {
			switch programName(s) {
			case "psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "mongosh", "mongo", "clickhouse-client", "cqlsh":
				return true
			}
			return false
		})
	}
	return false
}

// SQL reaches hermes inside other commands (psql -c, mysql -e, a here-
// document fed to a client) or as a command of its own; the SQL rules
// read every call line and here-document body for it.

// deleteWithoutWhere reports whether text has an SQL DELETE FROM whose
// statement (up to the next ; or line end) has no WHERE clause.
func deleteWithoutWhere(text string) bool {
	for off := 0; off < len(text); {
		i := wordPair(text[off:], "delete", "from")
		if i < 0 {
			return false
		}
		i += off
		stmt := text[i:]
		if end := strings.IndexAny(stmt, ";\n"); end >= 0 {
			stmt = stmt[:end]
		}
		if wordPair(stmt, "where", "") < 0 {
			return true
		}
		off = i + len("delete")
	}
	return false
}

// wordPair returns the index in s of the whole word a followed, after
// blanks, by the whole word b (or by anything when b is ""), or -1.
func wordPair(s, a, b string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], a)
		if i < 0 {
			return -1
		}
		i += off
		j := i + len(a)
		off = j
		if i > 0 && isIdent(s[i-1]) || j < len(s) && isIdent(s[j]) {
			continue
		}
		if b == "" {
			return i
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k > j && strings.HasPrefix(s[k:], b) && (k+len(b) == len(s) || !isIdent(s[k+len(b)])) {
			return i
		}
	}
}
