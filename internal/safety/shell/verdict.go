package shell

// Level is how dangerous a command is.
type Level string

// The three levels, from worst to harmless.
const (
	// Hardline commands destroy something with no way back (the root file
	// system, a disk, the whole process table, the running machine). hermes
	// never runs them: not with --yolo, not with approvals off, not when a
	// person says yes.
	Hardline Level = "hardline"
	// Dangerous commands may run once someone (or the smart-mode judge)
	// approves them, or when the policy says approvals are off.
	Dangerous Level = "dangerous"
	// Safe commands run without asking.
	Safe Level = "safe"
)

// Verdict is the outcome of classifying one command. Its JSON form is what
// `hermes security check` prints: {"verdict": "dangerous", "rule":
// "recursive_delete", "description": "recursive delete"}.
type Verdict struct {
	Level Level `json:"verdict"`
	// Rule is a short stable key for the rule that matched, the name used
	// in command_allowlist and in session grants. Empty when safe.
	Rule string `json:"rule,omitempty"`
	// Description says in a few words what the rule guards against.
	Description string `json:"description,omitempty"`
	// Match is the part of the command the rule matched: the simple
	// command (with its wrappers and redirections), or the script, as
	// written — or, for a command the input decodes, builds from
	// variables or writes to a file, as it will run. An approval prompt
	// shows it whatever else it has to cut. Empty when safe.
	Match string `json:"match,omitempty"`
}

// IsSafe reports whether the command may run without approval.
func (v Verdict) IsSafe() bool { return v.Level == Safe || v.Level == "" }

// String renders the verdict for logs and messages: "dangerous:
// recursive delete (recursive_delete)".
func (v Verdict) String() string {
	if v.IsSafe() {
		return string(Safe)
	}
	return string(v.Level) + ": " + v.Description + " (" + v.Rule + ")"
}
