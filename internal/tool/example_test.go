package tool_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/tool"
)

// weather is a read-only tool with one required argument.
type weather struct{}

func (weather) Spec() tool.Spec {
	return tool.Spec{
		Name:         "get_weather",
		Description:  "Current weather for a city. Not for historical climate questions.",
		Toolset:      "web",
		ParallelSafe: true,
		Parameters:   json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`),
	}
}

func (weather) Call(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	return map[string]any{"city": a.City, "days": a.Days, "sky": "晴"}, nil
}

func Example() {
	reg := tool.NewRegistry()
	if err := reg.Register(weather{}); err != nil {
		panic(err)
	}
	d := &tool.Dispatcher{Registry: reg}
	outs := d.Run(context.Background(), []llm.ToolCall{
		{ID: "1", Name: "GetWeather", Arguments: `{"city":"杭州","days":"2"}`},
		{ID: "2", Name: "get_weather", Arguments: `{"days":0}`},
		{ID: "3", Name: "get_news", Arguments: `{}`},
	}, nil)
	for _, o := range outs {
		fmt.Println(o.Content)
	}
	// Output:
	// {"status":"ok","data":{"city":"杭州","days":2,"sky":"晴"}}
	// {"status":"error","error_code":"invalid_arguments","message":"the arguments of get_weather do not match its parameters schema; the call did not run:\nat '': missing property 'city'\nat '/days': minimum: got 0, want 1\nFix every error listed and call get_weather again."}
	// {"status":"error","error_code":"not_found","message":"there is no tool named \"get_news\"; the available tools are: get_weather. Call one of them by its exact name"}
}
