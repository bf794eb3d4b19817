package shell

// hermes can be told to change itself from inside a turn: hermes config
// set approvals.mode off, hermes tools import-openapi, hermes skills
// install, hermes cron create --script …, hermes chat --yolo. Whatever
// path or name runs it ($(which hermes), ./hermes, a copy) and whatever
// home or profile it is pointed at, only its read-only commands run
// without approval.

// hermesGlobal are the options hermes takes before its subcommand that
// take a value.
const hermesShort, hermesLong = "p", "profile"

// hermesSelfChange fires when hermes is run to do anything but look:
// every subcommand other than the read-only ones listed in
// hermesReadOnly. hermes config set has a rule of its own.
func hermesSelfChange(c *call) bool {
	if c.name != "hermes" {
		return false
	}
	sub, rest := subcommand(c.args, hermesShort, hermesLong)
	if sub == "config" {
		verb, _ := subcommand(rest, "", "")
		if verb == "set" || verb == "unset" || verb == "edit" {
			return false // hermes_config_change
		}
	}
	return !hermesReadOnly(c.args, sub, rest)
}

// hermesReadOnly reports whether hermes SUB REST only prints something:
// help, version, showing configuration, sessions, tools, jobs, skills,
// memory and models, and checking a command or the configuration.
func hermesReadOnly(args []word, sub string, rest []word) bool {
	if anyWord(args, func(s string) bool { return s == "-h" || s == "--help" }) {
		return true
	}
	verb, _ := subcommand(rest, "", "")
	switch sub {
	case "", "help", "version", "security", "prompt":
		return true
	case "config":
		return oneOf(verb, "", "show", "get", "path", "check")
	case "sessions":
		return oneOf(verb, "", "list", "show", "search", "stats", "export")
	case "tools":
		return oneOf(verb, "", "list")
	case "cron":
		return oneOf(verb, "", "list", "show", "status", "history")
	case "skills":
		return oneOf(verb, "", "list", "view", "check")
	case "memory":
		return oneOf(verb, "", "show", "list", "search")
	case "model", "mcp":
		return oneOf(verb, "", "list")
	case "gateway":
		return oneOf(verb, "", "status", "start")
	}
	return false
}

// oneOf reports whether s is one of the choices.
func oneOf(s string, choices ...string) bool {
	for _, c := range choices {
		if s == c {
			return true
		}
	}
	return false
}
