package llmtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/hermes-go/hermes/internal/llm"
)

// Request is one model request as the server received it: the raw wire
// form, and the conversation decoded into hermes's canonical messages so
// that a test can assert on roles, text, tool calls and tool results
// without knowing which protocol carried them.
type Request struct {
	// Index is the request's position in Server.Requests, from 0.
	// Violations name requests by it.
	Index int
	// Path is the URL path ("/v1/messages"), API the protocol it speaks.
	Path string
	API  API
	// Stream is the body's "stream" flag: the reply is SSE when set.
	Stream bool
	// Header holds the request headers (Authorization, x-api-key,
	// anthropic-version, ...).
	Header http.Header
	// Body is the raw request body, for asserting on wire fields that
	// have no canonical form.
	Body []byte
	// Model is the body's "model".
	Model string
	// Messages is the conversation in canonical form. System prompts are
	// RoleSystem messages: Anthropic "system" and Responses "instructions"
	// come first, system and developer messages stay where they were
	// sent. Tool results are
	// RoleTool messages with ToolCallID set and Name taken from the call
	// they answer; Anthropic tool_result blocks become one RoleTool
	// message each, followed by a RoleUser message for any other content
	// of the same turn. Reasoning sent back (reasoning_content, Responses
	// reasoning items, Anthropic thinking blocks) is in Reasoning and
	// ReasoningBlocks. Images are image parts with a URL (base64 sources
	// become data: URLs).
	Messages []llm.Message
	// Tools are the function tools offered, in canonical form.
	Tools []llm.ToolSpec

	// wire[i] is the index in the wire list of the item Messages[i] came
	// from, so that violations point at what the client sent.
	wire []int
	// includeUsage is Chat Completions' stream_options.include_usage.
	includeUsage bool
	// encrypted is set when a Responses request asked for
	// reasoning.encrypted_content.
	encrypted bool
	// stateful is set when a Responses request continues a stored
	// response (previous_response_id), so its history is not all here.
	stateful bool
}

// LastUserText returns the text of the last user message, or "" when
// there is none.
func (r Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == llm.RoleUser {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// listName is what the protocol calls its conversation list.
func (r *Request) listName() string {
	if r.API == Responses {
		return "input"
	}
	return "messages"
}

// add appends a canonical message that came from wire item i.
func (r *Request) add(i int, m llm.Message) {
	r.Messages = append(r.Messages, m)
	r.wire = append(r.wire, i)
}

// problem is one violation found in a request, before the request has its
// Index. at is the wire index of the message at fault, or -1 when the
// whole request is.
type problem struct {
	at  int
	msg string
}

// format renders p as the violation sentence Server.Violations returns.
func (p problem) format(r *Request) string {
	if p.at < 0 {
		return fmt.Sprintf("request %d (%s): %s", r.Index, r.API, p.msg)
	}
	return fmt.Sprintf("request %d (%s): %s[%d]: %s", r.Index, r.API, r.listName(), p.at, p.msg)
}

// sortProblems orders problems by position, whole-request ones first.
func sortProblems(ps []problem) []problem {
	slices.SortStableFunc(ps, func(a, b problem) int { return cmp.Compare(a.at, b.at) })
	return ps
}

// decode fills r's decoded fields from r.Body. It reports the problems
// found on the way and whether the body could be decoded at all.
func decode(r *Request) ([]problem, bool) {
	if !json.Valid(r.Body) {
		return []problem{{-1, "body is not valid JSON"}}, false
	}
	trimmed := bytes.TrimSpace(r.Body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return []problem{{-1, "body is not a JSON object"}}, false
	}
	var (
		ps  []problem
		err error
	)
	switch r.API {
	case ChatCompletions:
		ps, err = decodeChat(r)
	case Responses:
		ps, err = decodeResponses(r)
	case AnthropicMessages:
		ps, err = decodeAnthropic(r)
	}
	if err != nil {
		return []problem{{-1, fmt.Sprintf("body does not match the %s request schema: %v", r.API, err)}}, false
	}
	if r.Model == "" {
		ps = append(ps, problem{-1, "model is missing"})
	}
	fillResultNames(r)
	return ps, true
}

// fillResultNames names each tool result after the call it answers, for
// protocols whose results carry only the call id.
func fillResultNames(r *Request) {
	names := map[string]string{}
	for i := range r.Messages {
		m := &r.Messages[i]
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
		if m.Role == llm.RoleTool && m.Name == "" {
			m.Name = names[m.ToolCallID]
		}
	}
}
