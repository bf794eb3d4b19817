package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// readTools reads tool definitions: an array of {name, description,
// parameters}, also accepting OpenAI's {"type":"function","function":{…}}
// and Anthropic's input_schema, so definitions can be pasted from either.
func readTools(path string) ([]llm.ToolSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tools: %w", err)
	}
	var raw []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		InputSchema json.RawMessage `json:"input_schema"`
		Function    *struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not a JSON array of tool definitions (%v); expected [{\"name\": ..., \"description\": ..., \"parameters\": {JSON Schema}}]", path, err)
	}
	tools := make([]llm.ToolSpec, 0, len(raw))
	for i, t := range raw {
		spec := llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
		if t.Function != nil {
			spec = llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}
		}
		if len(spec.Parameters) == 0 {
			spec.Parameters = t.InputSchema
		}
		if spec.Name == "" {
			return nil, fmt.Errorf("%s: tool [%d] has no name; every tool needs \"name\"", path, i)
		}
		if len(spec.Parameters) > 0 && !strings.HasPrefix(strings.TrimSpace(string(spec.Parameters)), "{") {
			return nil, fmt.Errorf("%s: tool [%d] %q: parameters must be a JSON Schema object, got %s", path, i, spec.Name, spec.Parameters)
		}
		tools = append(tools, spec)
	}
	return tools, nil
}
