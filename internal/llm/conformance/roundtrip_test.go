package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/anthropic"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// adapters builds each wire adapter against an llmtest server.
var adapters = []struct {
	api string
	new func(srv *llmtest.Server) llm.Provider
}{
	{"chat_completions", func(s *llmtest.Server) llm.Provider {
		return openai.NewChat(llm.Endpoint{Name: "chat", BaseURL: s.URL() + "/v1", APIKey: "k", Model: "m-chat"})
	}},
	{"responses", func(s *llmtest.Server) llm.Provider {
		return openai.NewResponses(llm.Endpoint{Name: "responses", BaseURL: s.URL() + "/v1", APIKey: "k", Model: "m-resp"})
	}},
	{"anthropic_messages", func(s *llmtest.Server) llm.Provider {
		return anthropic.New(llm.Endpoint{Name: "anthropic", BaseURL: s.URL(), APIKey: "k", Model: "m-claude"})
	}},
}

// TestToolRoundTrip runs a whole tool exchange through each adapter and the
// scripted server: the model thinks, says something and calls two tools;
// the results go back; the model answers. The server fails the test if the
// second request breaks the protocol (unanswered call, unknown id, roles
// out of order), and the conversation it decoded must be the one sent.
func TestToolRoundTrip(t *testing.T) {
	for _, a := range adapters {
		for _, stream := range []bool{true, false} {
			name := a.api + "/json"
			if stream {
				name = a.api + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := llmtest.New(t)
				srv.Enqueue(
					llmtest.Reply{Reasoning: "The user wants weather and time.", Text: "Let me check.",
						ToolCalls: []llm.ToolCall{
							{Name: "weather", Arguments: `{"city":"Oslo","units":"metric"}`},
							{Name: "clock", Arguments: `{}`},
						}},
					llmtest.Reply{Text: "It is 4 °C in Oslo and 10:00."},
				)
				p := a.new(srv)
				msgs := []llm.Message{llm.SystemMessage("Be brief."), llm.UserMessage("Weather and time in Oslo?")}
				tools := []llm.ToolSpec{
					{Name: "weather", Description: "Weather now", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
					{Name: "clock", Description: "Local time"},
				}

				first, deltas := generate(t, p, &llm.Request{Messages: msgs, Tools: tools, NoStream: !stream})
				if first.Text() != "Let me check." || first.FinishReason != llm.FinishToolCalls {
					t.Fatalf("first reply = %q finish %q", first.Text(), first.FinishReason)
				}
				if first.Message.Reasoning != "The user wants weather and time." {
					t.Errorf("reasoning = %q", first.Message.Reasoning)
				}
				if stream && deltas != first.Text() {
					t.Errorf("streamed text deltas %q do not add up to the reply %q", deltas, first.Text())
				}
				calls := first.Message.ToolCalls
				if len(calls) != 2 || calls[0].Name != "weather" || calls[1].Name != "clock" || calls[0].ID == "" || calls[0].ID == calls[1].ID {
					t.Fatalf("tool calls = %+v", calls)
				}
				if !llmtest.SameJSON(calls[0].Arguments, `{"city":"Oslo","units":"metric"}`) || !llmtest.SameJSON(calls[1].Arguments, `{}`) {
					t.Errorf("arguments = %s and %s", calls[0].Arguments, calls[1].Arguments)
				}
				if first.Usage.InputTokens == 0 || first.Usage.OutputTokens == 0 {
					t.Errorf("usage not reported: %+v", first.Usage)
				}

				msgs = append(msgs, first.Message,
					llm.ToolResultMessage(calls[0].ID, "weather", `{"status":"ok","data":{"temp_c":4}}`),
					llm.ToolResultMessage(calls[1].ID, "clock", `{"status":"ok","data":"10:00"}`))
				second, _ := generate(t, p, &llm.Request{Messages: msgs, Tools: tools, NoStream: !stream})
				if second.Text() != "It is 4 °C in Oslo and 10:00." || second.FinishReason != llm.FinishStop {
					t.Errorf("second reply = %q finish %q", second.Text(), second.FinishReason)
				}

				got := srv.Requests()[1]
				var roles []string
				for _, m := range got.Messages {
					roles = append(roles, string(m.Role))
				}
				if want := "system user assistant tool tool"; strings.Join(roles, " ") != want {
					t.Fatalf("server saw roles %q, want %q", strings.Join(roles, " "), want)
				}
				sentCalls := got.Messages[2].ToolCalls
				if len(sentCalls) != 2 || sentCalls[0].ID != calls[0].ID || sentCalls[1].ID != calls[1].ID {
					t.Errorf("calls sent back = %+v, want ids %q %q", sentCalls, calls[0].ID, calls[1].ID)
				}
				if got.Messages[2].Text() != "Let me check." {
					t.Errorf("assistant text sent back = %q", got.Messages[2].Text())
				}
				if got.Messages[3].ToolCallID != calls[0].ID || !strings.Contains(got.Messages[3].Text(), "temp_c") {
					t.Errorf("first tool result sent as %+v", got.Messages[3])
				}
				if len(got.Tools) != 2 || got.Tools[0].Name != "weather" {
					t.Errorf("tools offered = %+v", got.Tools)
				}
			})
		}
	}
}

func generate(t *testing.T, p llm.Provider, req *llm.Request) (*llm.Response, string) {
	t.Helper()
	var text strings.Builder
	var resp *llm.Response
	for ev := range p.Stream(t.Context(), req) {
		switch ev.Kind {
		case llm.EventText:
			text.WriteString(ev.Text)
		case llm.EventDone:
			resp = ev.Response
		case llm.EventError:
			t.Fatalf("call failed: %v", ev.Err)
		}
	}
	if resp == nil {
		t.Fatal("no final event")
	}
	return resp, text.String()
}
