package anthropic

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
)

// What a reply keeps without showing it — thinking signatures, redacted
// thinking — counts against the reply's size cap like its text: a stream
// of signature pieces is cut too.
func TestSignatureFloodIsCut(t *testing.T) {
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":[],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n")
	b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}\n\n")
	piece := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"" + strings.Repeat("QUJD", 256) + "\"}}\n\n"
	for range 200 {
		b.WriteString(piece)
	}
	c, _ := serve(t, 200, b.String())
	_, _, err := collect(t, c, &llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, MaxTokens: 1000})
	if llm.KindOf(err) != llm.ErrReplyTooLarge {
		t.Fatalf("err = %v, want reply_too_large", err)
	}
}
