package wecomtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomtest"
)

// A callback left unanswered is posted again, the same, after
// RetryAfter; one answered 200 is not.
func TestCallbackRetriedWithoutAnswer(t *testing.T) {
	s := wecomtest.New(wecomtest.Options{RetryAfter: 50 * time.Millisecond})
	defer s.Close()
	var mu sync.Mutex
	var bodies [][]byte
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			<-r.Context().Done() // no answer in time
			return
		}
		io.WriteString(w, "success")
	}))
	defer hs.Close()
	s.SetCallback(hs.URL)
	if _, err := s.UserMessage(context.Background(), wecomtest.Incoming{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 || !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("%d posts: %q", len(bodies), bodies)
	}
}

// message/send is strict where WeCom is lax (more than 2048 bytes is
// refused, not cut) and answers its errcodes in 200s.
func TestMessageSendLimits(t *testing.T) {
	s := wecomtest.New(wecomtest.Options{})
	defer s.Close()
	call := func(path string, body any) (code int) {
		data, _ := json.Marshal(body)
		resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: HTTP %d", path, resp.StatusCode)
		}
		var out struct {
			ErrCode int    `json:"errcode"`
			Token   string `json:"access_token"`
		}
		json.NewDecoder(resp.Body).Decode(&out)
		return out.ErrCode
	}
	resp, err := http.Get(s.URL + "/cgi-bin/gettoken?corpid=" + s.CorpID + "&corpsecret=" + s.Secret)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		Token string `json:"access_token"`
	}
	json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	send := func(text string) int {
		return call("/cgi-bin/message/send?access_token="+tok.Token, map[string]any{"touser": "alice", "msgtype": "text", "agentid": s.AgentID, "text": map[string]string{"content": text}})
	}
	if c := send(strings.Repeat("汉", 682) + "ab"); c != 0 {
		t.Errorf("2048 bytes: errcode %d", c)
	}
	if c := send(strings.Repeat("汉", 683)); c != 45002 {
		t.Errorf("2049 bytes: errcode %d", c)
	}
	s.FailNext(45009)
	if c := send("x"); c != 45009 {
		t.Errorf("injected: errcode %d", c)
	}
	s.DenyIP(true)
	if c := send("x"); c != 60020 {
		t.Errorf("untrusted IP: errcode %d", c)
	}
	s.DenyIP(false)
	s.ExpireTokens()
	if c := send("x"); c != 42001 {
		t.Errorf("expired token: errcode %d", c)
	}
	if n := len(s.Sent("alice")); n != 1 {
		t.Errorf("%d delivered", n)
	}
}

// The bot server refuses a wrong secret, keeps one connection per bot,
// and counts a reply to no message as a violation.
func TestBotServerSubscriptions(t *testing.T) {
	b := wecomtest.NewBot(wecomtest.BotOptions{})
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(secret string) (*websocket.Conn, int) {
		c, _, err := websocket.Dial(ctx, b.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(ctx, websocket.MessageText, []byte(`{"cmd":"aibot_subscribe","headers":{"req_id":"s1"},"body":{"bot_id":"`+b.BotID+`","secret":"`+secret+`"}}`))
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ans struct {
			ErrCode int `json:"errcode"`
		}
		json.Unmarshal(data, &ans)
		return c, ans.ErrCode
	}
	if c, code := dial("wrong"); code == 0 {
		t.Error("a wrong secret subscribed")
	} else {
		c.CloseNow()
	}
	first, code := dial(b.Secret)
	if code != 0 {
		t.Fatalf("errcode %d", code)
	}
	second, _ := dial(b.Secret)
	defer second.CloseNow()
	if _, _, err := first.Read(ctx); err == nil {
		t.Error("the first connection stayed open after a second subscribed")
	}
	second.Write(ctx, websocket.MessageText, []byte(`{"cmd":"aibot_respond_msg","headers":{"req_id":"made-up"},"body":{"msgtype":"stream","stream":{"id":"s","content":"x","finish":true}}}`))
	if _, _, err := second.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if v := b.Violations(); len(v) != 1 || !strings.Contains(v[0], "made-up") {
		t.Errorf("violations %q", v)
	}
}
