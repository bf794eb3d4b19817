package main

import (
	"context"
	"database/sql"
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

	"github.com/hermes-go/hermes/internal/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/pgtest"
	"github.com/hermes-go/hermes/internal/session"
	"github.com/hermes-go/hermes/internal/session/postgres"
)

// chaosKnobs are the chaos test's sizes; HERMES_CHAOS_* variables
// change them for a longer run by hand.
type chaosKnobs struct {
	conversations, tgUsers, turns, tgTurns, clients int
	// tgPause is how long a Telegram user waits between messages, so
	// that the chats go on across the kills.
	killEvery, modelDelay, tgPause time.Duration
}

func chaosSizes() chaosKnobs {
	k := chaosKnobs{conversations: 500, tgUsers: 40, turns: 3, tgTurns: 8, clients: 8, killEvery: 20 * time.Second,
		modelDelay: 250 * time.Millisecond, tgPause: 10 * time.Second}
	if v, err := strconv.Atoi(os.Getenv("HERMES_CHAOS_CONVERSATIONS")); err == nil && v > 0 {
		k.conversations = v
	}
	if v, err := strconv.Atoi(os.Getenv("HERMES_CHAOS_TELEGRAM_USERS")); err == nil && v >= 0 {
		k.tgUsers = v
	}
	if v, err := time.ParseDuration(os.Getenv("HERMES_CHAOS_KILL_EVERY")); err == nil && v > 0 {
		k.killEvery = v
	}
	return k
}

// TestReplicasChaos: three replicas of hermes serve on one PostgreSQL
// database behind a round-robin balancer answer 500 conversations of
// the API and 40 Telegram users of one polling bot, fire a job every 5
// seconds and a team's job every 10, while one of them (the Telegram leader and the
// scheduler among them) is killed with SIGKILL every 20 seconds and
// started again. API clients retry what failed with the same
// Idempotency-Key. At the end every API message was answered exactly
// once, in one session, and no session holds anything else; every
// Telegram message got one reply; one replica polled at a time; each
// fire of the jobs ran once; every team run ended done, its tasks each
// done once (a run a kill cut off was taken over by another replica);
// and hermes storage check finds the database sound.
func TestReplicasChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("the chaos test runs for a minute or more")
	}
	k := chaosSizes()
	dsn := pgtest.NewDatabase(t)
	srv := llmtest.New(t)
	srv.Handle(func(r llmtest.Request) llmtest.Reply {
		switch soulOf(r) {
		case "lead":
			reply := leadReply(r, []string{"writer", "writer"})
			reply.Delay = k.modelDelay
			return reply
		case "writer":
			// A writer takes its time, so a kill often lands inside a
			// team run.
			return llmtest.Reply{Text: "written: " + r.LastUserText(), Delay: 2 * time.Second}
		}
		return llmtest.Reply{Text: "answer to: " + r.LastUserText(), Delay: k.modelDelay}
	})
	const key = "k-chaos-0123456789"
	tg := telegramtest.New(telegramtest.Options{})
	t.Cleanup(tg.Close)
	polls := &pollWatch{first: map[string]time.Time{}}
	var allow []string
	for u := range k.tgUsers {
		allow = append(allow, fmt.Sprintf("%q", fmt.Sprint(tgUser0+u)))
	}
	config := `model: {base_url: "` + srv.URL() + `/v1", default: test-model, api_mode: chat_completions, api_key: sk-test-123456}
memory: {long_term: false}
storage: {driver: postgres, dsn: '` + dsn + `'}
api: {enabled: true, max_concurrent_runs: 64}
gateway:
  telegram: {token: "` + tg.Token + `", base_url: "` + polls.front(t, "any", tg.Handler()) + `", drafts: false, allow: [` + strings.Join(allow, ", ") + `]}
agents:
  lead: {description: plans the chores, system_prompt: "You are the lead."}
  writer: {description: writes, system_prompt: "You are the writer."}
teams:
  chores: {coordinator: lead, roles: [writer], lease: 3s}
schedules:
  tick: {cron: "every 5s", script: "echo tick", no_agent: true, deliver: [local], catch_up: all}
  chores: {cron: "every 10s", team: chores, prompt: "do the chores", catch_up: all}
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
	tgResults := make([]tgOutcome, k.tgUsers)
	for u := range k.tgUsers {
		clients.Go(func() { tgResults[u] = tgConverse(tg, tgUser0+u, k.tgTurns, k.tgPause) })
	}
	for c := range k.conversations {
		jobs <- c
	}
	close(jobs)
	clients.Wait()
	// The test runs long enough for kills to land.
	for rs.killed() < 3 && time.Since(started) < 5*time.Minute {
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
	elapsed := time.Since(started)
	t.Logf("%d conversations of %d turns in %s with %d replicas killed; %d requests retried",
		k.conversations, k.turns, elapsed.Round(time.Second), rs.kills, retries)

	// Telegram: only one replica polled at a time, and every message got
	// one reply: its answer, or, for a turn its replica died in, the
	// notice that the turn was cut off.
	cut, partial := 0, 0
	for u, o := range tgResults {
		if o.err != nil {
			t.Errorf("telegram user %d: %v", tgUser0+u, o.err)
		}
		cut, partial = cut+o.cut, partial+o.partial
		if n := len(tg.Sent(int64(tgUser0 + u))); n != k.tgTurns+o.partial {
			t.Errorf("telegram user %d got %d replies to %d messages (%d cut short above a notice)", tgUser0+u, n, k.tgTurns, o.partial)
		}
	}
	polls.mu.Lock()
	if polls.most != 1 {
		t.Errorf("%d replicas polled Telegram at once; want one at a time", polls.most)
	}
	polls.mu.Unlock()
	t.Logf("telegram: %d users of %d messages; %d turns cut off by a kill were answered with the notice (%d of them below a reply cut short)", k.tgUsers, k.tgTurns, cut, partial)

	checkFires(t, dsn, "tick", 5*time.Second, elapsed)
	checkFires(t, dsn, "chores", 10*time.Second, elapsed)
	checkTeamRuns(t, dsn)
	checkStorage(t, rs.homes[0])

	// Every message was answered exactly once, in its conversation's
	// session, and nothing else is stored.
	st, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sessions, err := st.List(t.Context(), session.ListOptions{Source: "api", Limit: 10 * k.conversations})
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

// tgUser0 is the first Telegram user id of the chaos test.
const tgUser0 = 5000

// tgOutcome is how a Telegram user's messages went: how many of their
// turns a kill cut off, how many of those had begun streaming a reply
// that stays cut short above the notice, and what went wrong.
type tgOutcome struct {
	cut, partial int
	err          error
}

// tgConverse sends user's turns messages one after the other, each
// once, waiting for the reply to each and then pause before the next,
// as a person does.
func tgConverse(tg *telegramtest.Server, user, turns int, pause time.Duration) (o tgOutcome) {
	chat := int64(user)
	time.Sleep(time.Duration(user%20) * pause / 20) // the users do not all write at once
	from := 0                                       // the first message sent after the last turn's reply
	for turn := range turns {
		if turn > 0 {
			time.Sleep(pause)
		}
		text := fmt.Sprintf("telegram %d message %d", user, turn)
		tg.UserMessage(telegramtest.Incoming{From: telegramtest.User{ID: chat, FirstName: "u"}, Text: text})
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		// The reply streams in as edits of one message; it is whole once
		// it ends with the message it answers. A turn a kill cut off is
		// answered with a notice in a message of its own, below what it
		// had streamed, if anything.
		var reply string
		at := -1
		err := tg.Wait(ctx, func() bool {
			sent := tg.Sent(chat)
			for i := from; i < len(sent); i++ {
				reply = sent[i].Text
				if strings.HasSuffix(reply, text) || strings.Contains(reply, "restarted while it was answering") {
					at = i
					return true
				}
			}
			return false
		})
		cancel()
		switch {
		case err != nil:
			o.err = fmt.Errorf("message %d not answered within 3 minutes (last seen: %q)", turn, reply)
			return o
		case strings.Contains(reply, "restarted while it was answering") && strings.Contains(reply, text):
			o.cut++
			o.partial += at - from
		case at != from:
			o.err = fmt.Errorf("message %d was answered %q after %d other messages", turn, reply, at-from)
			return o
		case !strings.HasPrefix(reply, "answer to: ") || !strings.HasSuffix(reply, text):
			// After a cut-off turn the session holds that message too,
			// so the model sees both; the answer ends with this one.
			o.err = fmt.Errorf("message %d was answered %q", turn, reply)
			return o
		}
		from = at + 1
	}
	return o
}

// checkFires checks the job fired every period over the run, each fire
// run once.
func checkFires(t *testing.T, dsn, job string, period, elapsed time.Duration) {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), `SELECT scheduled_for, count(*), string_agg(status, ','), string_agg(error, ' | ') FROM cron_runs WHERE job = $1 GROUP BY scheduled_for ORDER BY scheduled_for`, job)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	fires, interrupted := 0, 0
	why := map[string]int{}
	for rows.Next() {
		var at int64
		var n int
		var statuses, errs string
		if err := rows.Scan(&at, &n, &statuses, &errs); err != nil {
			t.Fatal(err)
		}
		fires++
		if n != 1 {
			t.Errorf("the fire of %s ran %d times (%s)", time.UnixMicro(at).UTC().Format(time.TimeOnly), n, statuses)
		}
		if statuses != "ok" {
			interrupted++
			why[statuses+": "+errs]++
		}
	}
	// A killed scheduler's lease is taken at once by another replica of
	// the same host (here every replica), or lapses after 30 s for one of
	// another; catch_up: all then runs each fire it missed. Over a run of
	// a minute or more nearly every fire has run.
	if want := int((elapsed - 35*time.Second) / period); fires < want*3/4 {
		t.Errorf("%s fired %d times in %s; want about %d", job, fires, elapsed.Round(time.Second), want)
	}
	t.Logf("cron: %s fired %d times in %s, each once; %d runs not ok (cut by a kill): %v", job, fires, elapsed.Round(time.Second), interrupted, why)
}

// checkTeamRuns waits until no team run is active (the runs a kill cut
// off are taken over by the replica that fires the jobs) and checks each
// ended done with its two tasks, each done once: one claim's completion,
// one output, and no task posted twice by a coordinator that resumed.
func checkTeamRuns(t *testing.T, dsn string) {
	t.Helper()
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var active int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM team_runs WHERE state = 'active'`).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d team runs still active two minutes after the last kill: no replica took them over", active)
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	rows, err := db.QueryContext(ctx, `SELECT r.id, r.state, r.error,
	(SELECT count(*) FROM team_tasks k WHERE k.run = r.id),
	(SELECT count(*) FROM team_tasks k WHERE k.run = r.id AND k.state = 'done'),
	(SELECT count(*) FROM team_artifacts a JOIN team_tasks k ON a.task = k.id WHERE k.run = r.id AND a.name = 'output'),
	(SELECT coalesce(max(k.attempts), 0) FROM team_tasks k WHERE k.run = r.id)
FROM team_runs r ORDER BY r.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	runs, retried := 0, 0
	for rows.Next() {
		var id int64
		var state, why string
		var tasks, done, outputs, attempts int
		if err := rows.Scan(&id, &state, &why, &tasks, &done, &outputs, &attempts); err != nil {
			t.Fatal(err)
		}
		runs++
		if attempts > 1 {
			retried++
		}
		if state != "done" || tasks != 2 || done != 2 || outputs != 2 {
			t.Errorf("team run %d: %s (%s) with %d tasks, %d done, %d outputs; want done with 2 tasks each done once", id, state, why, tasks, done, outputs)
		}
	}
	if runs == 0 {
		t.Error("the team's job never ran")
	}
	t.Logf("team: %d runs, each done with its tasks done once; %d had a task claimed again after a kill", runs, retried)
}

// checkStorage runs hermes storage check on the shared database.
func checkStorage(t *testing.T, h *home) {
	t.Helper()
	if r := h.hermes("storage", "check"); r.code != 0 {
		t.Errorf("hermes storage check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
