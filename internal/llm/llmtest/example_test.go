package llmtest_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// A test scripts the model's reply, points its client at the server and
// then asserts on what the server received, in canonical form. In a test,
// use llmtest.New(t), which also fails the test on protocol violations.
func Example() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Enqueue(llmtest.Reply{Text: "Paris."})

	body := `{"model":"gpt-test","messages":[
		{"role":"system","content":"Answer briefly."},
		{"role":"user","content":"Capital of France?"}]}`
	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message      struct{ Content string }
			FinishReason string `json:"finish_reason"`
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	fmt.Println(out.Choices[0].Message.Content, out.Choices[0].FinishReason)

	req := srv.Requests()[0]
	fmt.Println(req.API, req.Model, len(req.Messages), req.LastUserText())
	// Output:
	// Paris. stop
	// chat_completions gpt-test 2 Capital of France?
}

// Tool calls are answered in each protocol's own shape; here Anthropic's
// event stream, with the call's arguments sent as input_json_delta
// fragments.
func ExampleReply_toolCallStream() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "toolu_1", Name: "weather", Arguments: `{"city":"Oslo"}`}}})

	req, _ := http.NewRequest("POST", srv.URL()+"/v1/messages", strings.NewReader(
		`{"model":"claude-test","max_tokens":256,"stream":true,"messages":[{"role":"user","content":"Weather in Oslo?"}]}`))
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
			fmt.Println(name)
		}
	}
	// Output:
	// message_start
	// ping
	// content_block_start
	// content_block_delta
	// content_block_delta
	// content_block_stop
	// message_delta
	// message_stop
}

// Handle answers whatever the queue does not; Echo repeats the last user
// message, whichever protocol carried it.
func ExampleEcho() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Handle(llmtest.Echo)

	resp, err := http.Post(srv.URL()+"/v1/responses", "application/json",
		strings.NewReader(`{"model":"gpt-test","input":"say this back"}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out struct {
		Output []struct {
			Content []struct{ Text string }
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	fmt.Println(out.Output[0].Content[0].Text)
	// Output: say this back
}

// A scripted failure is sent in the protocol's own error envelope, with
// the Retry-After header a retry loop reads.
func ExampleErrorReply() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Enqueue(llmtest.Reply{Status: 429, Error: &llmtest.ErrorReply{Message: "Rate limit reached", RetryAfter: 2 * time.Second}})

	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Retry-After"))
	fmt.Println(string(body))
	// Output:
	// 429 2
	// {"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}
}

// Every conversation the server receives is checked; a tool call that is
// never answered is reported with the request and message it was found in.
func ExampleServer_Violations() {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Enqueue(llmtest.Reply{Text: "ok"})

	body := `{"model":"gpt-test","messages":[
		{"role":"user","content":"What time is it?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"clock","arguments":"{}"}}]},
		{"role":"user","content":"Hello?"}]}`
	resp, err := http.Post(srv.URL()+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	for _, v := range srv.Violations() {
		fmt.Println(v)
	}
	// Output: request 0 (chat_completions): messages[1]: tool call "call_1" (clock) is never answered
}
