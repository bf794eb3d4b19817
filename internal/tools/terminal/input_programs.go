package terminal

import (
	"path"
	"slices"
	"strings"
)

// codeSpec describes a program that reads a program, or commands of its
// own language, from stdin unless its arguments give it one.
type codeSpec struct {
	// interactive options make it read stdin whatever else is given
	// (python -i); program options give it its program, after which
	// stdin is data (python -c, psql -f, xargs -a); arg options take a
	// value. The ...Long fields are the long options alike.
	interactive, program, arg             string
	interactiveLong, programLong, argLong []string
	// operands are how many operands are not a program (psql's database
	// and user); one more gives it its program (a script, sqlite3's
	// SQL). always is set when no operand does (gdb, ed, sftp, xargs).
	operands int
	always   bool
	// dashLong is set for programs whose long options have one dash
	// (sqlite3 -cmd, erl -noshell).
	dashLong bool
	// replWord is an operand that starts its prompt (deno repl).
	replWord string
}

func (sp codeSpec) hasLong(list []string, name string) bool { return slices.Contains(list, name) }

// codeReader returns how the program name reads code, if it is one of
// the interpreters, debuggers, database shells and command builders whose
// input is code.
func codeReader(name string) (codeSpec, bool) {
	switch name {
	case "python":
		return codeSpec{interactive: "i", program: "cm", arg: "WXQ"}, true
	case "ipython":
		return codeSpec{interactive: "i", program: "cm"}, true
	case "bpython", "ptpython":
		return codeSpec{interactive: "i"}, true
	case "node":
		return codeSpec{interactive: "i", program: "ep", arg: "rC", interactiveLong: []string{"interactive"},
			programLong: []string{"eval", "print"}, argLong: []string{"require", "import", "loader", "conditions"}}, true
	case "deno":
		return codeSpec{replWord: "repl"}, true
	case "bun":
		return codeSpec{replWord: "repl", operands: -1}, true
	case "perl":
		return codeSpec{interactive: "d", program: "eE"}, true
	case "ruby":
		return codeSpec{program: "e", arg: "IrCEF"}, true
	case "php":
		return codeSpec{interactive: "a", program: "rBREf", arg: "cdz"}, true
	case "lua", "luajit":
		return codeSpec{interactive: "i", program: "e", arg: "l"}, true
	case "r":
		return codeSpec{program: "ef", programLong: []string{"file"}, always: true}, true
	case "rscript":
		return codeSpec{program: "e"}, true
	case "julia":
		return codeSpec{interactive: "i", program: "eE", programLong: []string{"eval", "print"}}, true
	case "expect":
		return codeSpec{interactive: "i", program: "f"}, true
	case "racket":
		return codeSpec{interactive: "i", program: "ef"}, true
	case "guile":
		return codeSpec{program: "c"}, true
	case "clisp":
		return codeSpec{program: "x"}, true
	case "dc":
		return codeSpec{program: "ef"}, true
	case "irb", "pry", "tclsh", "wish", "scala", "clj", "clojure", "ocaml", "utop", "jshell", "swift":
		return codeSpec{}, true
	case "ghci", "iex", "groovysh", "pdb", "ed", "red", "ex", "ftp":
		return codeSpec{always: true}, true
	case "sbcl":
		return codeSpec{programLong: []string{"script"}, always: true}, true
	case "erl":
		return codeSpec{programLong: []string{"noshell"}, always: true, dashLong: true}, true
	case "gdb":
		return codeSpec{programLong: []string{"batch"}, always: true, dashLong: true}, true
	case "lldb":
		return codeSpec{programLong: []string{"batch"}, always: true}, true
	case "psql":
		return codeSpec{program: "cf", arg: "dhpUvPLoT", programLong: []string{"command", "file"},
			argLong: []string{"dbname", "host", "port", "username", "set", "variable", "pset", "output", "log-file"}, operands: 2}, true
	case "mysql", "mariadb":
		return codeSpec{program: "e", arg: "hPuSD", programLong: []string{"execute"},
			argLong: []string{"host", "port", "user", "socket", "database"}, operands: 1}, true
	case "sqlite3", "duckdb":
		return codeSpec{argLong: []string{"cmd", "init", "separator", "newline", "nullvalue", "vfs", "maxsize", "lookaside",
			"pagecache", "mmap", "heap"}, operands: 1, dashLong: true}, true
	case "redis-cli":
		return codeSpec{arg: "hpsanuri"}, true
	case "mongo", "mongosh":
		return codeSpec{programLong: []string{"eval", "file"}, argLong: []string{"host", "port", "username", "password"}, operands: 1}, true
	case "cqlsh":
		return codeSpec{program: "ef", arg: "uk", programLong: []string{"execute", "file"}, operands: 2}, true
	case "clickhouse-client":
		return codeSpec{program: "q", arg: "hu", programLong: []string{"query", "queries-file"}}, true
	case "sqlcmd":
		return codeSpec{program: "Qi", arg: "SUPd"}, true
	case "pgcli", "mycli", "litecli":
		return codeSpec{operands: 1}, true
	case "usql":
		return codeSpec{program: "cf", operands: 1}, true
	case "beeline", "hive":
		return codeSpec{program: "ef"}, true
	case "sftp":
		return codeSpec{program: "b", arg: "BcDFiJloPRSs", always: true}, true
	case "lftp":
		return codeSpec{program: "cf", always: true}, true
	case "xargs":
		return codeSpec{program: "a", arg: "dEILnPs", programLong: []string{"arg-file"}, always: true}, true
	case "parallel":
		return codeSpec{program: "a", programLong: []string{"arg-file"}, always: true}, true
	case "crontab":
		return codeSpec{program: "lre", arg: "u"}, true
	}
	return codeSpec{}, false
}

// replModule reports whether python -m runs the module as a prompt that
// reads stdin.
func replModule(name string) bool {
	switch name {
	case "code", "pdb", "ipdb", "pudb", "IPython", "asyncio", "ptpython", "bpython", "sqlite3", "idlelib":
		return true
	}
	return false
}

// readsCode reports whether a program that can read a program or
// commands from stdin does so, given its arguments.
func readsCode(name string, sp codeSpec, args []word) bool {
	operands := 0
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-" || v == "/dev/stdin" || v == sp.replWord && operands == 0:
			return true
		case v == "--":
			operands += len(args) - i - 1
			i = len(args)
		case strings.HasPrefix(v, "--") || sp.dashLong && len(v) > 2 && v[0] == '-':
			n, _, has := strings.Cut(strings.TrimLeft(v, "-"), "=")
			switch {
			case sp.hasLong(sp.interactiveLong, n):
				return true
			case sp.hasLong(sp.programLong, n):
				return false
			case !has && sp.hasLong(sp.argLong, n):
				i++
			}
		case len(v) > 1 && v[0] == '-':
			for k := 1; k < len(v); k++ {
				switch c := v[k]; {
				case strings.IndexByte(sp.interactive, c) >= 0:
					return true
				case strings.IndexByte(sp.program, c) >= 0:
					if name == "python" && c == 'm' && k+1 == len(v) && i+1 < len(args) {
						return replModule(args[i+1].value)
					}
					return false
				case strings.IndexByte(sp.arg, c) >= 0:
					if k == len(v)-1 {
						i++
					}
					k = len(v)
				}
			}
		default:
			operands++
		}
	}
	return sp.always || operands <= sp.operands
}

// progName is the name a program is known by: the base name of its path,
// lower-cased, with the version of versioned interpreters dropped
// (python3.12 → python, nodejs → node).
func progName(s string) string {
	name := strings.ToLower(path.Base(s))
	switch name {
	case "nodejs":
		return "node"
	case "py", "pypy", "pypy3":
		return "python"
	case "proxychains4":
		return "proxychains"
	}
	for _, family := range []string{"python", "perl", "ruby", "php", "lua", "tclsh", "wish", "pip"} {
		if rest, ok := strings.CutPrefix(name, family); ok && rest != "" && strings.Trim(rest, "0123456789.") == "" {
			return family
		}
	}
	return name
}

// isShellProgram reports whether name is a shell that reads commands
// from stdin when given neither -c nor a script.
func isShellProgram(name string) bool {
	switch name {
	case "sh", "bash", "rbash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "dash", "ash", "yash", "posh",
		"fish", "csh", "tcsh", "elvish", "nu", "xonsh", "pwsh", "powershell", "rc", "es", "hush", "msh":
		return true
	}
	return false
}
