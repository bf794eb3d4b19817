package wecomtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RetryAfter is how long WeCom waits for a callback's answer before it
// posts the callback again; it posts three times in all.
const (
	RetryAfter = 5 * time.Second
	Attempts   = 3
)

// Incoming is a message a member writes to the app.
type Incoming struct {
	// From is the member's userid ("alice" when empty).
	From string
	Text string
	// MsgID is set by UserMessage.
	MsgID string
}

// SetCallback sets the URL WeCom posts the app's callbacks to.
func (s *Server) SetCallback(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callback = u
}

// VerifyURL does what WeCom does when the URL is saved in the console: a
// GET with an encrypted echostr, which the app must answer decrypted. It
// returns an error unless the answer is exactly the echostr's plaintext.
func (s *Server) VerifyURL(ctx context.Context) error {
	plain := strconv.FormatInt(time.Now().UnixNano(), 10)
	echo, err := s.crypt.Encrypt([]byte(plain), rand.Reader)
	if err != nil {
		return err
	}
	status, body, err := s.do(ctx, http.MethodGet, s.signedQuery(echo, url.Values{"echostr": {echo}}), nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK || body != plain {
		return fmt.Errorf("URL verification answered %d %q, want 200 %q", status, body, plain)
	}
	return nil
}

// UserMessage posts a member's text to the app as WeCom does: encrypted,
// signed, and posted again after RetryAfter without an answer (Attempts
// times in all). It returns the message's MsgId once an attempt was
// answered 200.
func (s *Server) UserMessage(ctx context.Context, in Incoming) (string, error) {
	if in.From == "" {
		in.From = "alice"
	}
	s.mu.Lock()
	s.nextMsg++
	in.MsgID = strconv.FormatInt(7000000000000000000+s.nextMsg, 10)
	s.posted[in.MsgID] = in
	s.mu.Unlock()
	return in.MsgID, s.post(ctx, in)
}

// Redeliver posts message msgID again, as WeCom does when it took the
// first answer for lost.
func (s *Server) Redeliver(ctx context.Context, msgID string) error {
	s.mu.Lock()
	in, ok := s.posted[msgID]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("wecomtest: no message %s was posted", msgID)
	}
	return s.post(ctx, in)
}

func (s *Server) post(ctx context.Context, in Incoming) error {
	body, err := s.Seal(s.MessageXML(in))
	if err != nil {
		return err
	}
	var last error
	for i := 0; i < Attempts; i++ {
		actx, cancel := context.WithTimeout(ctx, s.retryAfter)
		status, _, err := s.do(actx, http.MethodPost, body.Query, strings.NewReader(body.XML))
		cancel()
		if err == nil && status == http.StatusOK {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("answered %d", status)
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return fmt.Errorf("wecomtest: the callback of message %s was not taken after %d posts: %w", in.MsgID, Attempts, last)
}

// MessageXML is the decrypted callback of a text message to the app.
func (s *Server) MessageXML(in Incoming) string {
	return fmt.Sprintf("<xml><ToUserName><![CDATA[%s]]></ToUserName><FromUserName><![CDATA[%s]]></FromUserName>"+
		"<CreateTime>%d</CreateTime><MsgType><![CDATA[text]]></MsgType><Content><![CDATA[%s]]></Content>"+
		"<MsgId>%s</MsgId><AgentID>%d</AgentID></xml>",
		s.CorpID, cdata(in.From), s.clock.Now().Unix(), cdata(in.Text), in.MsgID, s.AgentID)
}

// cdata keeps s inside a CDATA section by splitting any "]]>".
func cdata(s string) string { return strings.ReplaceAll(s, "]]>", "]]]]><![CDATA[>") }

// Sealed is a callback ready to post: its query and body.
type Sealed struct {
	Query url.Values
	XML   string
}

// Seal encrypts a decrypted callback and signs it, as WeCom does.
func (s *Server) Seal(plain string) (Sealed, error) {
	enc, err := s.crypt.Encrypt([]byte(plain), rand.Reader)
	if err != nil {
		return Sealed{}, err
	}
	var b strings.Builder
	b.WriteString("<xml><ToUserName><![CDATA[" + s.CorpID + "]]></ToUserName><AgentID><![CDATA[" + strconv.FormatInt(s.AgentID, 10) + "]]></AgentID><Encrypt><![CDATA[")
	b.WriteString(enc)
	b.WriteString("]]></Encrypt></xml>")
	return Sealed{Query: s.signedQuery(enc, nil), XML: b.String()}, nil
}

// signedQuery is the query WeCom adds: timestamp, nonce and the
// msg_signature over them and the encrypted text.
func (s *Server) signedQuery(encrypted string, q url.Values) url.Values {
	if q == nil {
		q = url.Values{}
	}
	ts := strconv.FormatInt(s.clock.Now().Unix(), 10)
	nonce := strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	q.Set("timestamp", ts)
	q.Set("nonce", nonce)
	q.Set("msg_signature", s.crypt.Signature(ts, nonce, encrypted))
	return q
}

// Post posts body with query to the callback URL, for forged requests;
// it returns the status and the answer.
func (s *Server) Post(ctx context.Context, query url.Values, body string) (int, string, error) {
	return s.do(ctx, http.MethodPost, query, strings.NewReader(body))
}

func (s *Server) do(ctx context.Context, method string, q url.Values, body io.Reader) (int, string, error) {
	s.mu.Lock()
	target := s.callback
	s.mu.Unlock()
	if target == "" {
		return 0, "", fmt.Errorf("wecomtest: no callback URL set")
	}
	req, err := http.NewRequestWithContext(ctx, method, target+"?"+q.Encode(), body)
	if err != nil {
		return 0, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "text/xml")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(data), err
}
