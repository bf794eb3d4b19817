// Package shell reads a shell command the model asked for and says how
// dangerous it is.
//
// Normalize and Classify read a command the way a shell would — after
// undoing the spellings people use to hide a word from a pattern (ANSI
// escapes, full-width letters, r"m", r\m, $IFS, line continuations) — and
// sort it into three levels: hardline commands that hermes never runs,
// dangerous commands that need someone's approval, and safe ones. The
// approval policy in package safety turns a verdict into a decision, and
// `hermes security check` prints one.
//
// Detection is deliberately conservative. Words are dequoted, command
// substitutions and shell -c payloads are read as commands in their own
// right, and a dangerous piece anywhere in a compound command makes the
// whole command dangerous. Quoted arguments stay data: echo "rm -rf /" is
// safe because the shell only prints it.
//
// What a command builds before it runs is read as what it becomes: words
// assembled from variables, the positional parameters, printf -v and read
// (X="rm -rf"; $X ~); literal payloads decoded on the way to a shell
// (base64, hex, printf escapes, rev, tr, sed, gzip); programs found or
// copied indirectly ($(which rm), cp /bin/rm x; ./x); files written and
// then run; the argument lists of xargs, parallel and find -exec; the
// commands wrappers (flock, unshare, systemd-run …), options (git -c
// core.pager, tar --checkpoint-action, vim -c '!…') and interpreters'
// shell calls (os.system, system, execSync) run. What cannot be known
// without running it — a command name held in an unknown variable, a
// downloaded payload piped to a shell — is dangerous, never safe; and a
// path that cannot be expanded is judged at its worst ($DIR/ is / when
// DIR is unset). Options give the directory the command starts in and
// hermes's home, which relative paths and hermes's own files need, and the
// variables and functions a persistent shell kept from earlier commands
// (State), which only ever add readings.
package shell
