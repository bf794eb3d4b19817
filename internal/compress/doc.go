// Package compress shrinks a conversation that no longer fits the model's
// context window, the way Hermes Agent's context compressor does, in four
// phases:
//
//  1. Old tool results outside the protected tail are replaced by one-line
//     descriptions of what the call did, identical results are folded into
//     a reference to the first one, and huge tool-call arguments are cut
//     while staying valid JSON. No model call is made.
//  2. Boundaries are chosen: a head of the first few messages (only before
//     the first compression), a tail sized by a token budget that never
//     starts on a tool result and always holds the last user message, and
//     the middle between them.
//  3. The middle is summarized by a Summarizer into a fixed set of headings
//     (Goal, Constraints & Preferences, Progress, Key Decisions, Relevant
//     Files, Next Steps, Critical Context), in the user's language, with
//     secrets redacted. A later compression updates the previous summary
//     instead of writing a new one.
//  4. Head, summary and tail are assembled, the summary's role chosen so
//     that roles still alternate, and orphaned tool calls and results are
//     removed so that the result passes Validate.
//
// A summary call that fails because the model cannot be reached (auth,
// network, timeouts, an unavailable provider) leaves the conversation
// unchanged and returns an error the caller must show; a Compressor then
// cools down before compressing on its own again. Any other failure (an
// empty, refused or malformed summary) inserts a deterministic fallback
// summary built from the dropped turns, so compression never silently
// loses the task in progress.
//
// Messages given to and returned by this package exclude the system
// prompt; the caller adds it when it builds a model request.
package compress
