package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

// Result mapping. An MCP result is a list of content parts plus optional
// structured content; hermes's envelope has one data field. The mapping:
//
//   - Only text (the common case): data is the text parts joined by
//     newlines, a plain string, so the model reads it as the server wrote
//     it.
//   - Structured content whose text is redundant (the text is the JSON of
//     it, as the MCP spec advises servers to send, or one of its top-level
//     string values, as server-filesystem sends), and nothing else: data
//     is the structured content itself, so the model reads each value
//     once.
//   - Anything more: data is an object with "text" (the joined text, unless
//     redundant as above), "structured" (structuredContent), "image_data_url"
//     (the first image as a data: URL, which the agent loop turns into an
//     image the model sees), "resources" (resource links, by uri and name)
//     and "omitted" (what could not be passed on: further images, audio,
//     binary resources).
//   - isError: a *tool.Error with code internal and the server's text, not
//     retryable: the server ran the tool and it failed.

// resourceRef is a resource link the model may ask about.
type resourceRef struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mime_type,omitempty"`
}

// mapped is what a result's parts were turned into.
type mapped struct {
	texts     []string
	image     string
	resources []resourceRef
	omitted   []string
}

// toData turns a tool result into the data of an ok envelope, or an
// *tool.Error when the server reported the call failed.
func toData(res *sdk.CallToolResult) (any, error) {
	m := mapContent(res.Content)
	text := strings.Join(m.texts, "\n")
	if res.IsError {
		if text == "" {
			text = "the MCP tool reported an error without a message"
		}
		e := tool.Errorf(tool.CodeInternal, "%s", text)
		if res.StructuredContent != nil {
			e.Data = map[string]any{"structured": res.StructuredContent}
		}
		return nil, e
	}
	if res.StructuredContent == nil && m.image == "" && len(m.resources) == 0 && len(m.omitted) == 0 {
		return text, nil
	}
	data := map[string]any{}
	if sc := res.StructuredContent; sc != nil {
		if redundant(text, sc) {
			text = ""
			if m.image == "" && len(m.resources) == 0 && len(m.omitted) == 0 {
				return sc, nil
			}
		}
		data["structured"] = sc
	}
	if text != "" {
		data["text"] = text
	}
	if m.image != "" {
		data["image_data_url"] = m.image
	}
	if len(m.resources) > 0 {
		data["resources"] = m.resources
	}
	if len(m.omitted) > 0 {
		data["omitted"] = m.omitted
	}
	return data, nil
}

// mapContent sorts a result's parts into text, the first image, resource
// links and notes about what was left out.
func mapContent(parts []sdk.Content) mapped {
	var m mapped
	for _, p := range parts {
		switch c := p.(type) {
		case *sdk.TextContent:
			m.texts = append(m.texts, c.Text)
		case *sdk.ImageContent:
			if m.image == "" && strings.HasPrefix(c.MIMEType, "image/") {
				m.image = "data:" + c.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(c.Data)
			} else {
				m.omitted = append(m.omitted, fmt.Sprintf("image (%s, %d bytes)", c.MIMEType, len(c.Data)))
			}
		case *sdk.AudioContent:
			m.omitted = append(m.omitted, fmt.Sprintf("audio (%s, %d bytes)", c.MIMEType, len(c.Data)))
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
			case r.Text != "":
				m.texts = append(m.texts, r.Text)
			default:
				m.omitted = append(m.omitted, fmt.Sprintf("binary resource %s (%s, %d bytes)", r.URI, r.MIMEType, len(r.Blob)))
			}
		case *sdk.ResourceLink:
			m.resources = append(m.resources, resourceRef{URI: c.URI, Name: c.Name, Title: c.Title, Description: c.Description, MIMEType: c.MIMEType})
		default:
			m.omitted = append(m.omitted, fmt.Sprintf("content of type %T", p))
		}
	}
	return m
}

// redundant reports whether text says nothing the structured content v
// does not: it is empty, the JSON of v, or one of v's top-level string
// values.
func redundant(text string, v any) bool {
	if text == "" {
		return true
	}
	if obj, ok := v.(map[string]any); ok {
		for _, x := range obj {
			if x == text {
				return true
			}
		}
	}
	text = strings.TrimSpace(text)
	if text == "" || (text[0] != '{' && text[0] != '[') {
		return false
	}
	var parsed any
	if json.Unmarshal([]byte(text), &parsed) != nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var norm any
	if json.Unmarshal(b, &norm) != nil {
		return false
	}
	return reflect.DeepEqual(parsed, norm)
}
