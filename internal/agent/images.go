package agent

import (
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/internal/llm"
)

// imageKey is the field of a tool's data that carries an image for the
// model (browser_screenshot): a data: URL. Chat protocols carry images in
// user messages, not in tool results, so the loop moves it out of the
// result (where its base64 would cost tens of thousands of tokens as text)
// into a user message right after the round's results.
const imageKey = "image_data_url"

// takeImage removes the image from a serialized tool result. It returns
// the result without it and the image URL, or the result unchanged and "".
func takeImage(content string) (string, string) {
	if !strings.Contains(content, `"`+imageKey+`":"data:image/`) {
		return content, ""
	}
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &env) != nil {
		return content, ""
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(env["data"], &data) != nil {
		return content, ""
	}
	var url string
	if json.Unmarshal(data[imageKey], &url) != nil || !strings.HasPrefix(url, "data:image/") {
		return content, ""
	}
	delete(data, imageKey)
	data["image"] = json.RawMessage(`"attached in the next message"`)
	b, err := json.Marshal(data)
	if err != nil {
		return content, ""
	}
	env["data"] = b
	out, err := json.Marshal(env)
	if err != nil {
		return content, ""
	}
	return string(out), url
}

// imageMessage is the user message that shows the model the images tools
// returned in one round.
func imageMessage(names []string, urls []string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	m.Content = append(m.Content, llm.TextPart("[images returned by "+strings.Join(names, ", ")+"]"))
	for _, u := range urls {
		m.Content = append(m.Content, llm.ImagePart(u))
	}
	return m
}
