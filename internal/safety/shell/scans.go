package shell

import (
	"strings"
)

// The checks that look at several commands of one script together:
// pipelines into a shell, chmod +x followed by running the file, a
// backgrounded gateway, a fork bomb.

// pipeSource says what feeds a pipeline into a shell.
type pipeSource uint8

const (
	fromAny      pipeSource = 1 << iota // any text piped into a shell
	fromDecoder                         // base64 -d, xxd -r, tr … | sh
	fromDownload                        // curl, wget … | sh
)

// pipeIntoShell returns a scan that fires when a pipeline ends in a
// program that runs its stdin as code and an earlier member is of the
// given source.
func pipeIntoShell(want pipeSource) func(*scriptView) bool {
	return func(sv *scriptView) bool { return sv.pipeSources()&want != 0 }
}

// pipeSources computes, once per script, the kinds of source piped into a
// code-reading program.
func (sv *scriptView) pipeSources() pipeSource {
	if sv.pipesDone {
		return sv.pipes
	}
	sv.pipesDone = true
	start := 0
	for i, c := range sv.calls {
		if i > start && readsCode(c) {
			sv.pipes |= fromAny
			for _, src := range sv.calls[start:i] {
				switch {
				case downloader(src):
					sv.pipes |= fromDownload
				case decoder(src):
					sv.pipes |= fromDecoder
				}
			}
		}
		if sep := c.cmd.sep; sep != "|" && sep != "|&" {
			start = i + 1
		}
	}
	return sv.pipes
}

// downloader reports whether c fetches content from the network.
func downloader(c *call) bool {
	switch c.name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "iwr", "irm", "invoke-webrequest", "invoke-restmethod", "lwp-request":
		return true
	}
	return false
}

// decoder reports whether c turns encoded text into something else.
func decoder(c *call) bool {
	o := getopt(c.args, "w", "wrap")
	switch c.name {
	case "base64", "base32", "base16", "basenc":
		return o.has("dD") || o.hasLong("decode", 2)
	case "xxd":
		return o.has("r")
	case "openssl":
		return anyWord(c.args, func(s string) bool { return s == "-d" || s == "-base64" || s == "base64" && o.has("d") })
	case "uudecode", "tr", "rev", "gunzip", "zcat", "bzcat", "xzcat":
		return true
	case "gzip", "bzip2", "xz", "zstd":
		return o.has("d") || o.hasLong("decompress", 3)
	case "echo", "printf":
		return anyWord(c.args, func(s string) bool { return strings.Contains(s, "\\x") || strings.Contains(s, "\\0") })
	}
	return false
}

// chmodExecRun fires when chmod makes a file executable and a later
// command of the same script runs a ./ path or the file itself: whatever
// the file holds runs without its contents ever being shown.
func chmodExecRun(sv *scriptView) bool {
	later := map[string]bool{} // programs run after the current call
	dotSlash := false          // whether one of them is a ./ path
	for i := len(sv.calls) - 1; i >= 0; i-- {
		c := sv.calls[i]
		if c.name == "chmod" && (dotSlash || len(later) > 0) {
			o := getopt(c.args, "", "reference")
			if len(o.operands) >= 2 && addsExec(o.operands[0].text) &&
				(dotSlash || anyWord(o.operands[1:], func(s string) bool { return later[s] })) {
				return true
			}
		}
		later[c.exe.text] = true
		dotSlash = dotSlash || strings.HasPrefix(c.exe.text, "./")
	}
	return false
}

// addsExec reports whether a chmod mode grants execute permission.
func addsExec(mode string) bool {
	if mode != "" && len(mode) <= 4 && strings.Trim(mode, "01234567") == "" {
		return len(mode) >= 3 && (mode[len(mode)-3]-'0')&1 != 0
	}
	return strings.Contains(mode, "+") && strings.ContainsAny(mode[strings.IndexByte(mode, '+'):], "xX") ||
		strings.Contains(mode, "=") && strings.ContainsAny(mode[strings.IndexByte(mode, '='):], "xX")
}

// gatewayDetached fires when "gateway run" is started in the background
// (&, nohup, setsid, disown): a second gateway outside its service manager
// fights the first over the same chats.
func gatewayDetached(sv *scriptView) bool {
	disown := false
	for _, c := range sv.calls {
		disown = disown || c.name == "disown"
	}
	for _, c := range sv.calls {
		words := append([]word{c.exe}, c.args...)
		for i := 0; i+1 < len(words); i++ {
			if words[i].text == "gateway" && words[i+1].text == "run" {
				if c.cmd.sep == "&" || disown || c.hasWrapper("nohup") || c.hasWrapper("setsid") {
					return true
				}
			}
		}
	}
	return false
}

// maskQuoted replaces quoted text (and escaped characters) with spaces,
// keeping everything else where it was.
func maskQuoted(s string) string {
	b := []byte(s)
	quote := byte(0)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote == 0 && c == '\\' && i+1 < len(b):
			b[i+1] = ' '
			i++
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b[i] = ' '
		}
	}
	return string(b)
}

// processSubstitutionExec fires when a shell, interpreter or source runs a
// script produced by a process substitution: bash <(curl …),
// bash < <(curl …).
func processSubstitutionExec(c *call) bool {
	if !isShell(c.name) && !isInterpreter(c.name) && c.name != "source" && c.name != "." {
		return false
	}
	for _, a := range c.args {
		if a.proc {
			return true
		}
	}
	for _, r := range c.cmd.redirs {
		if r.op == "<" && r.target.proc {
			return true
		}
	}
	return false
}

// sourceSubstitution fires when source or . reads a file named or made by
// a command substitution: source $(curl …).
func sourceSubstitution(c *call) bool {
	for _, a := range c.args {
		if len(a.subs) > 0 {
			return true
		}
	}
	return false
}

// shellHeredoc fires when a shell reads its commands from a here-document
// or here-string.
func shellHeredoc(c *call) bool {
	if c.cmd.stdin == nil {
		return false
	}
	sh := shellArgs(c)
	return !sh.hasC && (sh.stdin || sh.script == nil || sh.script.text == "-")
}

// interpreterHeredoc fires when an interpreter reads its program from a
// here-document or here-string.
func interpreterHeredoc(c *call) bool { return c.cmd.stdin != nil && readsCode(c) }
