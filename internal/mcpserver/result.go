package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/tool"
)

// imageKey is the field of a tool's data that carries an image as a data:
// URL (browser_screenshot). MCP has a content type for images, so it
// leaves the text and becomes an image part: as base64 text it would cost
// the calling model tens of thousands of tokens and show it nothing.
const imageKey = "image_data_url"

// envelope is the serialized tool.Result the dispatcher produced.
type envelope struct {
	Status    tool.Status     `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorCode tool.Code       `json:"error_code"`
	Message   string          `json:"message"`
}

// toResult maps a dispatcher outcome to an MCP tool result. It reads the
// outcome's Content, not its Result, because Content is what the model
// would see: cut to the output limit and redacted.
//
//   - ok: one text part with the data (a string as it is, anything else as
//     compact JSON) and, when the data is a JSON object, the same object as
//     structured content; the envelope's message (a note that the output
//     was cut) follows as a second text part;
//   - error: isError, a text part "error_code: message", and the error's
//     data, when there is any, as a second text part;
//   - an image_data_url in the data becomes an image part.
//
// Content that is no longer a JSON envelope (cut in the middle of a long
// list) goes to the client as text.
func toResult(out tool.Outcome) *mcp.CallToolResult {
	var env envelope
	if err := json.Unmarshal([]byte(out.Content), &env); err != nil || env.Status == "" {
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: out.Content}},
			IsError: out.Result.Status == tool.StatusError,
		}
	}
	data, image := takeImage(env.Data)
	if env.Status == tool.StatusError {
		res := &mcp.CallToolResult{IsError: true}
		res.Content = append(res.Content, &mcp.TextContent{Text: string(env.ErrorCode) + ": " + env.Message})
		if text := dataText(data); text != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: text})
		}
		return appendImage(res, image)
	}
	res := &mcp.CallToolResult{}
	res.Content = append(res.Content, &mcp.TextContent{Text: dataText(data)})
	if isObject(data) {
		res.StructuredContent = data
	}
	if env.Message != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: env.Message})
	}
	return appendImage(res, image)
}

// dataText is data as the client reads it: a JSON string unquoted,
// anything else as compact JSON, nothing as "".
func dataText(data json.RawMessage) string {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return ""
	}
	if data[0] == '"' {
		var s string
		if json.Unmarshal(data, &s) == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, data) != nil {
		return string(data)
	}
	return buf.String()
}

// isObject reports whether data is a JSON object.
func isObject(data json.RawMessage) bool {
	data = bytes.TrimSpace(data)
	return len(data) > 0 && data[0] == '{'
}

// image is a decoded data: URL.
type image struct {
	mime string
	data []byte
}

// takeImage removes a valid image data URL from a data object. It returns
// the data without it and the image, or the data unchanged and nil.
func takeImage(data json.RawMessage) (json.RawMessage, *image) {
	if !isObject(data) || !bytes.Contains(data, []byte(`"`+imageKey+`"`)) {
		return data, nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return data, nil
	}
	var url string
	if json.Unmarshal(obj[imageKey], &url) != nil {
		return data, nil
	}
	img := decodeDataURL(url)
	if img == nil {
		return data, nil
	}
	delete(obj, imageKey)
	out, err := marshalNoEscape(obj)
	if err != nil {
		return data, nil
	}
	return out, img
}

// decodeDataURL decodes "data:image/png;base64,...", or returns nil.
func decodeDataURL(url string) *image {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return nil
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil
	}
	mime, ok := strings.CutSuffix(meta, ";base64")
	if !ok || !strings.HasPrefix(mime, "image/") {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil
	}
	return &image{mime: mime, data: b}
}

// appendImage adds img to res as an image part, when there is one.
func appendImage(res *mcp.CallToolResult, img *image) *mcp.CallToolResult {
	if img != nil {
		res.Content = append(res.Content, &mcp.ImageContent{MIMEType: img.mime, Data: img.data})
	}
	return res
}

// marshalNoEscape encodes v as compact JSON leaving <, > and & alone, as
// the dispatcher's envelopes do.
func marshalNoEscape(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
