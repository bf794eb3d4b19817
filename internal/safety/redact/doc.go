// Package redact keeps secrets and injected instructions out of what the
// model and the logs see.
//
// Redactor and Secrets replace secrets in text: the values hermes holds,
// in their common encodings too (base64, hex, reversed, URL- and
// JSON-escaped), and any secret recognized by its shape. SecretEnvName and ScrubEnv keep
// secret environment variables from the commands hermes runs.
// ScanInjection finds prompt injection in text about to be trusted:
// context files, memory entries, skills.
//
// Its users are the packages that pass text on to the model or the logs
// (compress, prompt, memory, memory/facts, skill, notify), tools/declared,
// and cmd/hermes, which redacts tool results and logs and scrubs the
// terminal's environment.
package redact
