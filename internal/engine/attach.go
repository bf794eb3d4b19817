package engine

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/internal/llm"
)

// attach returns the parts Input.Attach brings for the session sessionID
// and the turn's model, none when it is not set.
func (e *Engine) attach(ctx context.Context, in Input, sessionID, model string) ([]llm.Part, error) {
	if in.Attach == nil {
		return nil, nil
	}
	parts, err := in.Attach(ctx, AttachTo{SessionID: sessionID, Images: llm.SeesImages(model)})
	if err != nil {
		return nil, fmt.Errorf("attaching what came with the message: %w", err)
	}
	return parts, nil
}

// userMessage is the user's message: its text, then what came with it.
// Each stays a part of its own, so an image follows the words that came
// with it, as the person sent them.
func userMessage(text string, attached []llm.Part) llm.Message {
	if len(attached) == 0 {
		return llm.UserMessage(text)
	}
	m := llm.Message{Role: llm.RoleUser}
	if text != "" {
		m.Content = append(m.Content, llm.TextPart(text))
	}
	m.Content = append(m.Content, attached...)
	return m
}
