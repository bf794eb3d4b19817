// Package skill is hermes's skill system: procedures the agent saved from
// earlier work (or a person wrote), kept as agentskills.io-compatible
// SKILL.md files so a Hermes Agent user's ~/.hermes/skills works unchanged.
//
// A skill is a directory $HERMES_HOME/skills/<category>/<name>/ (the
// category level is optional) holding SKILL.md — YAML front matter, then a
// Markdown body — and optional support folders references/, templates/,
// scripts/ and assets/.
//
// The package offers the two ways a skill reaches the model: an index of
// names and descriptions for the stable part of the system prompt
// (Library.Index), and the full skill as a user message when the user types
// /skill-name (Library.Invocation). Its tools — skills_list, skills_search,
// skill_view and skill_manage — let the model read, find, write and repair
// skills itself.
//
// # Caching
//
// A Library parses the skill directories once and keeps the result in
// memory. Every call first walks the directory tree down to the skill
// directories and stats each SKILL.md, hashing their modification times and
// sizes; when the hash differs from the cached one the library is parsed
// again. This walk is chosen over fsnotify because it needs no watcher
// goroutines or per-directory watches, works on network file systems, and
// notices a skill written by another process on the very next call — a
// watcher's event may arrive after that call. It costs one stat per
// directory and per skill, well under a millisecond for hundreds of skills.
//
// # Usage and the archive
//
// The library records, in DIR/.curator/usage.json, who made each skill
// (Origin), when, and when it was last changed, viewed and used (Usage);
// the skills curator (package skill/curator) reads it to retire the
// agent's unused skills. A retired skill is moved whole to DIR/.archive,
// which the walk skips, and Restore moves it back; merges of skills are
// checked like any skill the agent writes and recorded so Restore undoes
// them. The records are hidden folders, so writing them does not change
// the fingerprint above.
package skill
