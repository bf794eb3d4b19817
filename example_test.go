package hermes_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/hermes-go/hermes"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
)

// scriptedModel starts a model server that answers with replies, in
// order, over the OpenAI wire protocol, and returns the configuration
// that points hermes at it. A program configures its real provider
// instead (see the README's "Models and providers").
func scriptedModel(replies ...llmtest.Reply) (config []byte, stop func()) {
	srv := llmtest.NewServer()
	srv.Enqueue(replies...)
	return []byte(`model:
  base_url: ` + srv.URL() + `/v1
  default: demo
  api_mode: chat_completions
  api_key: ${DEMO_API_KEY}
`), srv.Close
}

// call is a tool call the scripted model makes.
func call(name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: name, Arguments: args}}}
}

// A one-shot question to a hermes that keeps no files.
func Example() {
	config, stop := scriptedModel(llmtest.Reply{Text: "Paris."})
	defer stop()

	ctx := context.Background()
	agent, err := hermes.Open(ctx, hermes.Options{
		InMemory: true,
		Config:   config,
		Env:      map[string]string{"DEMO_API_KEY": "sk-demo-0123456789"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	reply, err := agent.Ask(ctx, "What is the capital of France?")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text, reply.Stopped)
	// Output: Paris. done
}

// A tool of the program: a Go function whose parameters' JSON Schema
// comes from its argument's struct.
func ExampleNewTool() {
	config, stop := scriptedModel(
		call("order_status", `{"order_id":"A-1024"}`),
		llmtest.Reply{Text: "Order A-1024 has shipped."},
	)
	defer stop()

	type orderQuery struct {
		OrderID string `json:"order_id" jsonschema:"the order number, such as A-1024"`
	}
	status, err := hermes.NewTool("order_status", "The shipping status of one order.",
		func(ctx context.Context, q orderQuery) (map[string]string, error) {
			return map[string]string{"order_id": q.OrderID, "status": "shipped"}, nil
		}, hermes.ReadOnly())
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	agent, err := hermes.Open(ctx, hermes.Options{InMemory: true, Config: config,
		Env: map[string]string{"DEMO_API_KEY": "sk-demo-0123456789"}, Tools: []*hermes.Tool{status}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	reply, err := agent.Run(ctx, hermes.Turn{Text: "Where is my order A-1024?"}, func(e hermes.Event) {
		if e.Kind == hermes.EventToolFinished {
			fmt.Println(e.Tool.Name, e.Tool.Result)
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Text)
	// Output:
	// order_status {"status":"ok","data":{"order_id":"A-1024","status":"shipped"}}
	// Order A-1024 has shipped.
}

// A turn streamed as the model writes it.
func ExampleAgent_Stream() {
	config, stop := scriptedModel(llmtest.Reply{Text: "One, two, three.", ChunkSize: 5})
	defer stop()

	ctx := context.Background()
	agent, err := hermes.Open(ctx, hermes.Options{InMemory: true, Config: config,
		Env: map[string]string{"DEMO_API_KEY": "sk-demo-0123456789"}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	var pieces []string
	for e, err := range agent.Stream(ctx, hermes.Turn{Text: "Count to three."}) {
		if err != nil {
			log.Fatal(err)
		}
		switch e.Kind {
		case hermes.EventText:
			pieces = append(pieces, e.Text)
		case hermes.EventDone:
			fmt.Println(e.Reply.Text)
		}
	}
	fmt.Printf("%q\n", pieces)
	// Output:
	// One, two, three.
	// ["One, " "two, " "three" "."]
}

// An approval callback: the program decides each dangerous command the
// model wants to run.
func ExampleApproveFunc() {
	config, stop := scriptedModel(
		call("terminal", `{"command":"rm -rf build"}`),
		llmtest.Reply{Text: "I was not allowed to delete build."},
	)
	defer stop()

	dir, err := os.MkdirTemp("", "hermes-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(dir+"/build", 0o755); err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	agent, err := hermes.Open(ctx, hermes.Options{InMemory: true, Config: config, Workdir: dir,
		Env: map[string]string{"DEMO_API_KEY": "sk-demo-0123456789"},
		Approve: func(ctx context.Context, a hermes.Approval) hermes.Decision {
			fmt.Printf("asked about %q (%s)\n", a.Command, a.Rule)
			return hermes.Deny
		}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	reply, err := agent.Ask(ctx, "Clean the build directory.")
	if err != nil {
		log.Fatal(err)
	}
	_, statErr := os.Stat(dir + "/build")
	fmt.Println(reply.Text, "build still there:", statErr == nil)
	// Output:
	// asked about "rm -rf build" (recursive_delete)
	// I was not allowed to delete build. build still there: true
}

// Resuming a session: the second turn continues the first's
// conversation, and the session can be read back.
func ExampleAgent_Run_resume() {
	config, stop := scriptedModel(
		llmtest.Reply{Text: "Noted: your name is Ada."},
		llmtest.Reply{Text: "Your name is Ada."},
	)
	defer stop()

	ctx := context.Background()
	agent, err := hermes.Open(ctx, hermes.Options{InMemory: true, Config: config,
		Env: map[string]string{"DEMO_API_KEY": "sk-demo-0123456789"}})
	if err != nil {
		log.Fatal(err)
	}
	defer agent.Close()

	first, err := agent.Ask(ctx, "My name is Ada.")
	if err != nil {
		log.Fatal(err)
	}
	second, err := agent.Run(ctx, hermes.Turn{Session: first.Session, Text: "What is my name?"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(second.Text, second.Session == first.Session)

	msgs, err := agent.Messages(ctx, first.Session)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, strings.TrimSpace(m.Text))
	}
	// Output:
	// Your name is Ada. true
	// user: My name is Ada.
	// assistant: Noted: your name is Ada.
	// user: What is my name?
	// assistant: Your name is Ada.
}
