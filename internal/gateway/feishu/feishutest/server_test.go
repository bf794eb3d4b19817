package feishutest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/clock"
)

// call makes one Open API call and returns the status and the envelope.
func call(t *testing.T, s *Server, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.URL+path, bytes.NewReader(b))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env map[string]any
	json.NewDecoder(resp.Body).Decode(&env)
	return resp.StatusCode, env
}

func token(t *testing.T, s *Server) string {
	t.Helper()
	_, env := call(t, s, http.MethodPost, "/open-apis/auth/v3/tenant_access_token/internal", "", map[string]string{"app_id": s.AppID, "app_secret": s.AppSecret})
	tok, _ := env["tenant_access_token"].(string)
	if tok == "" {
		t.Fatalf("no token: %v", env)
	}
	return tok
}

func code(env map[string]any) int {
	c, _ := env["code"].(float64)
	return int(c)
}

func cardOf(text string, updateMulti bool) string {
	b, _ := json.Marshal(map[string]any{"config": map[string]bool{"update_multi": updateMulti},
		"elements": []any{map[string]string{"tag": "markdown", "content": text}}})
	return string(b)
}

// The server is as strict as Feishu: a token that expired or was never
// issued, a wrong secret, content that is not a JSON string of its type,
// a card over 30 KB or without update_multi, and more than five calls a
// second to one chat are refused with Feishu's codes; a uuid sends once.
func TestServerLimits(t *testing.T) {
	fake := clock.NewFake(time.Now())
	s := New(Options{Clock: fake})
	defer s.Close()
	send := "/open-apis/im/v1/messages?receive_id_type=chat_id"
	if _, env := call(t, s, http.MethodPost, "/open-apis/auth/v3/tenant_access_token/internal", "", map[string]string{"app_id": s.AppID, "app_secret": "no"}); code(env) != 10014 {
		t.Errorf("a wrong secret: %v", env)
	}
	tok := token(t, s)
	msg := func(content, uuid string) map[string]any {
		return map[string]any{"receive_id": "oc_1", "msg_type": "interactive", "content": content, "uuid": uuid}
	}
	for _, tt := range []struct {
		token string
		body  any
		want  int
	}{
		{"", msg(cardOf("x", true), ""), 99991661},
		{"t-forged", msg(cardOf("x", true), ""), 99991663},
		{tok, msg("not json", ""), CodeCardInvalid},
		{tok, msg(cardOf("x", false), ""), CodeCardInvalid},
		{tok, msg(cardOf(strings.Repeat("x", MaxCardBytes), true), ""), CodeTooLong},
		{tok, map[string]any{"receive_id": "oc_1", "msg_type": "text", "content": `"a string, not an object"`}, CodeInvalidParam},
	} {
		if _, env := call(t, s, http.MethodPost, send, tt.token, tt.body); code(env) != tt.want {
			t.Errorf("%v: %v, want code %d", tt.body, env, tt.want)
		}
	}
	_, a := call(t, s, http.MethodPost, send, tok, msg(cardOf("once", true), "u-1"))
	_, b := call(t, s, http.MethodPost, send, tok, msg(cardOf("once", true), "u-1"))
	if fmt.Sprint(a["data"]) != fmt.Sprint(b["data"]) || len(s.Sent("oc_1")) != 1 {
		t.Errorf("the same uuid sent twice: %v %v", a, b)
	}
	for i := range 4 {
		if _, env := call(t, s, http.MethodPost, send, tok, msg(cardOf(fmt.Sprint(i), true), "")); code(env) != 0 {
			t.Errorf("send %d in the second: %v", i+2, env)
		}
	}
	if _, env := call(t, s, http.MethodPost, send, tok, msg(cardOf("sixth", true), "")); code(env) != CodeRateLimited || s.RateLimited("oc_1") != 1 {
		t.Errorf("the sixth call in a second: %v", env)
	}
	fake.Advance(time.Second)
	if _, env := call(t, s, http.MethodPost, send, tok, msg(cardOf("later", true), "")); code(env) != 0 {
		t.Errorf("a second later: %v", env)
	}
	fake.Advance(2 * time.Hour)
	if _, env := call(t, s, http.MethodPost, send, tok, msg(cardOf("x", true), "")); code(env) != 99991663 {
		t.Errorf("an expired token: %v", env)
	}
}

// Events are posted encrypted and signed, and posted again until they
// are answered 200, also when an answer is lost.
func TestEventsAreRetried(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	var got []string
	answers := []int{500, 200, 200}
	srv := newHook(t, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Encrypt string `json:"encrypt"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		got = append(got, r.Header.Get("X-Lark-Signature"))
		w.WriteHeader(answers[0])
		answers = answers[1:]
	})
	s.SetEventURL(srv)
	s.LoseAcks(1)
	id, _ := s.Message(Incoming{Text: "hi"})
	s.posts.wg.Wait()
	if st := s.Statuses(id); fmt.Sprint(st) != "[500 200 200]" || len(got) != 3 || got[0] == "" {
		t.Errorf("statuses %v, signatures %q", st, got)
	}
}
