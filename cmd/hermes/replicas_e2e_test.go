package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/session/postgres"
)

// chaosKnobs are the chaos test's sizes; HERMES_CHAOS_* variables
// change them for a longer run by hand.
type chaosKnobs struct {
	conversations, turns, clients int
	killEvery, modelDelay         time.Duration
}

func chaosSizes() chaosKnobs {
	k := chaosKnobs{conversations: 500, turns: 3, clients: 8, killEvery: 20 * time.Second, modelDelay: 250 * time.Millisecond}
	if v, err := strconv.Atoi(os.Getenv("HERMES_CHAOS_CONVERSATIONS")); err == nil && v > 0 {
		k.conversations = v
	}
	if v, err := time.ParseDuration(os.Getenv("HERMES_CHAOS_KILL_EVERY")); err == nil && v > 0 {
		k.killEvery = v
	}
	return k
}

// TestReplicasChaos: three replicas of hermes serve on one PostgreSQL
// database behind a round-robin balancer answer 500 conversations of
// the API while one of them is killed with SIGKILL every 20 seconds and
// started again. Clients retry what failed with the same
// Idempotency-Key. At the end every message was answered exactly once,
// in one session, and no session holds anything else.
func TestReplicasChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos test runs for a minute or more")
	}
	k := chaosSizes()
	dsn := pgtest.NewDatabase(t)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "answer to: " + r.LastUserText(), Delay: k.modelDelay}
	})
	const key = "k-chaos-0123456789"
	config := `model: {base_url: "` + srv.URL() + `/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: '` + dsn + `'}
api: {enabled: true, max_concurrent_runs: 64}
`
	rs := newReplicaSet(t, 3, config, key)
	for i := range rs.homes {
		if err := rs.start(i); err != nil {
			t.Fatal(err)
		}
	}
	lb := roundRobin(t, rs.addrs)

	ctx, stopKilling := context.WithCancel(t.Context())
	var killer sync.WaitGroup
	var killErr error
	killer.Go(func() {
		every(ctx, k.killEvery, func() {
			i := rs.kills % len(rs.homes)
			rs.kill(i)
			if err := rs.start(i); err != nil && killErr == nil {
				killErr = err
			}
		})
	})

	started := time.Now()
	results := make([]outcome, k.conversations)
	jobs := make(chan int)
	var clients sync.WaitGroup
	for range k.clients {
		clients.Go(func() {
			for c := range jobs {
				results[c] = converse(lb, key, c, k.turns)
			}
		})
	}
	for c := range k.conversations {
		jobs <- c
	}
	close(jobs)
	clients.Wait()
	// The test runs long enough for kills to land.
	for rs.kills < 3 && time.Since(started) < 5*time.Minute {
		time.Sleep(100 * time.Millisecond)
	}
	stopKilling()
	killer.Wait()
	if killErr != nil {
		t.Fatal(killErr)
	}
	retries := 0
	for c, o := range results {
		if o.err != nil {
			t.Errorf("conversation %d: %v", c, o.err)
		}
		retries += o.retries
	}
	t.Logf("%d conversations of %d turns in %s with %d replicas killed; %d requests retried",
		k.conversations, k.turns, time.Since(started).Round(time.Second), rs.kills, retries)

	// Every message was answered exactly once, in its conversation's
	// session, and nothing else is stored.
	st, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions, err := st.List(t.Context(), session.ListOptions{Limit: 10 * k.conversations})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]bool{}
	for _, s := range sessions {
		byID[s.ID] = true
	}
	for c, o := range results {
		if o.err != nil {
			continue
		}
		delete(byID, o.session)
		msgs, err := st.Messages(t.Context(), o.session)
		if err != nil {
			t.Errorf("conversation %d: %v", c, err)
			continue
		}
		if err := wellFormed(msgs, c, k.turns); err != nil {
			t.Errorf("conversation %d, session %s: %v", c, o.session, err)
		}
	}
	for id := range byID {
		msgs, _ := st.Messages(t.Context(), id)
		t.Errorf("session %s belongs to no conversation (%d messages): a dead attempt's left-overs", id, len(msgs))
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the model saw requests its protocol refuses: %v", v)
	}
}

// outcome is how a conversation went: its session, how many requests
// were sent again, and what went wrong.
type outcome struct {
	session string
	retries int
	err     error
}

// converse holds conversation c of turns turns through the balancer,
// retrying each message with its Idempotency-Key until it is answered.
func converse(lb, key string, c, turns int) (o outcome) {
	o.session = "new"
	for turn := range turns {
		text := fmt.Sprintf("conversation %d message %d", c, turn)
		body, _ := json.Marshal(map[string]any{"model": "hermes", "messages": []map[string]string{{"role": "user", "content": text}}})
		deadline := time.Now().Add(3 * time.Minute)
		for attempt := 0; ; attempt++ {
			sid, answer, status, err := chatThrough(lb, key, o.session, fmt.Sprintf("c%d-t%d", c, turn), body)
			if err == nil && status == http.StatusOK {
				if answer != "answer to: "+text {
					o.err = fmt.Errorf("message %d was answered %q", turn, answer)
					return o
				}
				o.session = sid
				break
			}
			if time.Now().After(deadline) {
				o.err = fmt.Errorf("message %d not answered within 3 minutes: last %d %v", turn, status, err)
				return o
			}
			switch status {
			case 0, http.StatusBadGateway, http.StatusConflict, http.StatusServiceUnavailable, http.StatusTooManyRequests:
			default:
				o.err = fmt.Errorf("message %d: status %d: %s", turn, status, answer)
				return o
			}
			o.retries++
			time.Sleep(time.Duration(100+50*min(attempt, 10)) * time.Millisecond)
		}
	}
	return o
}

// chatThrough sends one chat completion and returns the session, the
// answer (or the error body) and the status; status 0 is a failed
// connection.
func chatThrough(lb, key, sessionID, idem string, body []byte) (sid, answer string, status int, err error) {
	req, _ := http.NewRequest("POST", lb+"/v1/chat/completions", strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hermes-Session-Id", sessionID)
	req.Header.Set("Idempotency-Key", idem)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", "", 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return "", string(b), resp.StatusCode, nil
	}
	var out struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &out); err != nil || len(out.Choices) != 1 {
		return "", string(b), resp.StatusCode, fmt.Errorf("not a chat completion: %s", b)
	}
	return resp.Header.Get("X-Hermes-Session-Id"), out.Choices[0].Message.Content, resp.StatusCode, nil
}

// wellFormed checks a conversation's session holds its turns in order,
// each message once and each answered once, and nothing else.
func wellFormed(msgs []session.Message, c, turns int) error {
	if len(msgs) != 2*turns {
		var got []string
		for _, m := range msgs {
			got = append(got, string(m.Role)+": "+m.Text())
		}
		return fmt.Errorf("%d messages, want %d: %q", len(msgs), 2*turns, got)
	}
	for turn := range turns {
		text := fmt.Sprintf("conversation %d message %d", c, turn)
		q, a := msgs[2*turn], msgs[2*turn+1]
		if q.Role != llm.RoleUser || q.Text() != text {
			return fmt.Errorf("message %d is %s %q, want the user's %q", 2*turn, q.Role, q.Text(), text)
		}
		if a.Role != llm.RoleAssistant || a.Text() != "answer to: "+text || len(a.ToolCalls) > 0 {
			return fmt.Errorf("message %d is %s %q, want the answer to %q", 2*turn+1, a.Role, a.Text(), text)
		}
	}
	return nil
}
