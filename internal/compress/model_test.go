package compress

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/llm"
	"github.com/hermes-go/hermes/internal/llm/llmtest"
	"github.com/hermes-go/hermes/internal/llm/openai"
)

// chineseConversation is a tool-heavy conversation whose user writes in
// Chinese and once pastes a key.
func chineseConversation(t *testing.T) []llm.Message {
	msgs := conversation(t, 120)
	for i, m := range msgs {
		if m.Role == llm.RoleUser {
			msgs[i] = llm.UserMessage("请修复 pkg 里失败的测试，然后运行 go test 确认结果")
		}
	}
	msgs[10] = llm.UserMessage("请用这个密钥部署：" + testSecret)
	return inProgress(t, msgs, "迁移：把数据库升级到第二版", 2)
}

func modelCompressor(t *testing.T, srv *llmtest.Server) *Compressor {
	t.Helper()
	p := openai.NewChat(llm.Endpoint{Name: "test", BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m"})
	c, err := New(Options{Window: 32_000, ReplyBudget: 4_000, Summarizer: ModelSummarizer{Provider: p},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestModelSummarizer(t *testing.T) {
	srv := llmtest.New(t)
	srv.Enqueue(llmtest.Reply{Text: goodSummary("迁移数据库")}, llmtest.Reply{Text: "```markdown\n" + goodSummary("部署") + "\n```"})
	c := modelCompressor(t, srv)
	msgs := chineseConversation(t)

	res, err := c.Compress(context.Background(), msgs, CompressOptions{Focus: "数据库迁移"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback || res.Summary != goodSummary("迁移数据库") {
		t.Fatalf("summary %q fallback %v", res.Summary, res.Fallback)
	}
	if err := Validate(res.Messages); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	sent := reqs[0]
	if len(sent.Tools) != 0 {
		t.Errorf("the summary call offered %d tools", len(sent.Tools))
	}
	body := string(sent.Body)
	text := sent.LastUserText()
	if strings.Contains(body, testSecret) || !strings.Contains(text, "[REDACTED:openai_key]") {
		t.Error("the secret was sent to the summary model")
	}
	for _, want := range append(Headings(), "### Done", "### In Progress", "### Blocked", "Chinese", "数据库迁移", "<turns>", "TOOL RESULT terminal") {
		if !strings.Contains(text, want) {
			t.Errorf("the summary request lacks %q", want)
		}
	}
	if strings.Contains(text, "<previous-summary>") {
		t.Error("a first compression sent a previous summary")
	}

	// The second compression sends the first summary to be updated.
	more := inProgress(t, append(res.Messages, llm.AssistantMessage("读完了。")), "部署：发布到预发环境", 20)
	res2, err := c.Compress(context.Background(), more, CompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Summary != goodSummary("部署") {
		t.Errorf("the code fence was not removed: %q", res2.Summary)
	}
	text = srv.Requests()[1].LastUserText()
	if !strings.Contains(text, "<previous-summary>\n"+goodSummary("迁移数据库")) || !strings.Contains(text, "UPDATE the previous summary") {
		t.Errorf("the second request does not ask to update the previous summary:\n%.600s", text)
	}
	if err := Validate(res2.Messages); err != nil {
		t.Fatal(err)
	}
}

func TestModelSummarizerServerDown(t *testing.T) {
	srv := llmtest.New(t)
	c := modelCompressor(t, srv)
	srv.Close()
	msgs := chineseConversation(t)
	input := append([]llm.Message(nil), msgs...)
	res, err := c.Compress(context.Background(), msgs, CompressOptions{})
	if !errors.Is(err, ErrSummaryUnavailable) || llm.KindOf(err) != llm.ErrNetwork {
		t.Fatalf("err = %v, want ErrSummaryUnavailable of kind network", err)
	}
	if !reflect.DeepEqual(res.Messages, input) {
		t.Error("the conversation changed")
	}
	if c.Due() {
		t.Error("no cooldown after the server went down")
	}
}

func TestModelSummarizerErrors(t *testing.T) {
	tests := []struct {
		name     string
		reply    llmtest.Reply
		fallback bool
		kind     llm.ErrorKind
	}{
		{"auth aborts", llmtest.Reply{Status: 401, Error: &llmtest.ErrorReply{Message: "bad key"}}, false, llm.ErrAuth},
		{"empty reply falls back", llmtest.Reply{Text: ""}, true, ""},
		{"content filter falls back", llmtest.Reply{Text: "no", FinishReason: llm.FinishContentFilter}, true, ""},
		{"prose without headings falls back", llmtest.Reply{Text: "The user fixed tests."}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Enqueue(tt.reply)
			res, err := modelCompressor(t, srv).Compress(context.Background(), chineseConversation(t), CompressOptions{})
			if tt.fallback {
				if err != nil || !res.Fallback {
					t.Fatalf("err %v fallback %v, want a fallback summary", err, res.Fallback)
				}
				if !strings.Contains(res.Summary, "请修复 pkg 里失败的测试") {
					t.Errorf("fallback summary lacks the user's asks:\n%s", res.Summary)
				}
				return
			}
			if !errors.Is(err, ErrSummaryUnavailable) || llm.KindOf(err) != tt.kind {
				t.Fatalf("err = %v, want ErrSummaryUnavailable of kind %s", err, tt.kind)
			}
		})
	}
}

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"请修复这个测试 in main.go please", "Chinese"},
		{"このテストを直してください", "Japanese"},
		{"이 테스트를 고쳐 주세요", "Korean"},
		{"Почини этот тест", "Cyrillic"},
		{"fix the failing test in 中", "Latin"},
		{"12345 !!!", ""},
	}
	for _, tt := range tests {
		got := detectLanguage([]llm.Message{llm.UserMessage(tt.text), llm.AssistantMessage("Sure, I will do it now in English.")})
		if (tt.want == "" && got != "") || !strings.Contains(got, tt.want) {
			t.Errorf("detectLanguage(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
