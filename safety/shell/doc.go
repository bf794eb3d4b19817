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
package shell
