package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"
)

// outcome is what one streaming chat completion came to.
type outcome struct {
	token    string
	stateful bool // sent X-Hermes-Session-Id
	status   int
	session  string // X-Hermes-Session-Id of the answer
	// firstByte is the time from sending the request to the first byte
	// of the response (serve sends its headers and the role chunk once
	// the turn's session is known, before the model is asked).
	firstByte time.Duration
	// firstText is the time to the first chunk with content.
	firstText time.Duration
	// complete says the stream ended as OpenAI ends one: a chunk with a
	// finish_reason, then data: [DONE], with the reply's token in the
	// content.
	complete bool
	err      error
}

// chunk is the part of a chat.completion.chunk the bench reads.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// complete sends one streaming chat completion whose prompt carries tok
// and reads its stream to the end. session is sent as
// X-Hermes-Session-Id when not empty.
func complete(ctx context.Context, c *http.Client, url, tok, session string) outcome {
	o := outcome{token: tok, stateful: session != ""}
	body, _ := json.Marshal(map[string]any{
		"model":    "hermes",
		"stream":   true,
		"messages": []map[string]string{{"role": "user", "content": "Please answer " + tok + " in a sentence."}},
	})
	var start time.Time
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { o.firstByte = time.Since(start) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, url+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		o.err = err
		return o
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set("X-Hermes-Session-Id", session)
	}
	start = time.Now()
	resp, err := c.Do(req)
	if err != nil {
		o.err = err
		return o
	}
	defer resp.Body.Close()
	o.status, o.session = resp.StatusCode, resp.Header.Get("X-Hermes-Session-Id")
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return o
	}
	o.complete, o.err = o.read(resp.Body, start)
	return o
}

// read reads the SSE stream, timing the first content, and reports
// whether it ended whole.
func (o *outcome) read(body io.Reader, start time.Time) (bool, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var text strings.Builder
	finished := false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue // blank lines, and tool progress in SSE comments
		}
		if data == "[DONE]" {
			if !finished || !strings.HasPrefix(text.String(), o.token+":") {
				return false, fmt.Errorf("stream ended with finish_reason %t and text %q", finished, text.String())
			}
			return true, nil
		}
		var ch chunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			return false, fmt.Errorf("chunk %q: %w", data, err)
		}
		if ch.Error != nil {
			return false, fmt.Errorf("error in the stream: %s", ch.Error.Message)
		}
		for _, c := range ch.Choices {
			if c.Delta.Content != "" && o.firstText == 0 {
				o.firstText = time.Since(start)
			}
			text.WriteString(c.Delta.Content)
			finished = finished || c.FinishReason != nil
		}
	}
	if err := sc.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("stream ended without data: [DONE] after %q", text.String())
}
