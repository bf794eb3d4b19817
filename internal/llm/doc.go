// Package llm is the language-model layer of hermes: the canonical message,
// request and response types every other package speaks, the streaming
// Provider interface the wire adapters implement, classified errors, and the
// retry and fallback wrappers that keep a long-running agent talking to its
// model through rate limits, overloads and stalled streams.
//
// Inside hermes every message has one shape (OpenAI-style roles: system,
// user, assistant with tool calls, tool with a tool call id). The adapters in
// llm/openai and llm/anthropic translate at the edge, so the agent loop and
// the session store never see a vendor format.
package llm
