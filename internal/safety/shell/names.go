package shell

import "strings"

// Names of programs and options as rules compare them.

// programName returns the canonical name of the program a command word
// runs: its basename, lower-cased, without .exe, with versioned
// interpreter names collapsed (python3.12 → python, nodejs → node,
// pwsh → powershell).
func programName(text string) string {
	name := text
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		name = name[i+1:]
	}
	name = strings.TrimSuffix(name, ".exe")
	switch name {
	case "py":
		return "python"
	case "pwsh":
		return "powershell"
	case "nodejs":
		return "node"
	case "gtimeout":
		return "timeout"
	case "proxychains4":
		return "proxychains"
	}
	if strings.HasPrefix(name, "mkfs.") {
		return "mkfs"
	}
	if strings.HasPrefix(name, "newfs_") {
		return "newfs"
	}
	for _, family := range [...]string{"python", "pypy", "perl", "ruby", "php", "pip", "node", "lua"} {
		if rest, ok := strings.CutPrefix(name, family); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" && rest[0] != '.' {
			if family == "pypy" {
				return "python"
			}
			return family
		}
	}
	if name == "pypy" {
		return "python"
	}
	return name
}

// isShell reports whether name is a POSIX-family (or csh, fish) shell.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "rbash", "zsh", "ksh", "mksh", "dash", "ash", "yash", "fish", "csh", "tcsh":
		return true
	}
	return false
}

// isInterpreter reports whether name is a script interpreter that can run
// code from an argument or from stdin.
func isInterpreter(name string) bool {
	switch name {
	case "python", "perl", "ruby", "node", "php", "lua", "deno", "bun", "osascript", "rscript":
		return true
	}
	return false
}

// matchLong returns the long option in opts (space-separated) that name
// spells, allowing the unambiguous prefixes GNU getopt accepts (--recur
// for --recursive), or "" when none matches.
func matchLong(name, opts string) string {
	found := ""
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, " ")
		if o == name {
			return o
		}
		if name != "" && strings.HasPrefix(o, name) {
			if found != "" {
				return "" // ambiguous
			}
			found = o
		}
	}
	return found
}
