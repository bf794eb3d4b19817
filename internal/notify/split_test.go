package notify

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

func TestWeComTruncatesInBytes(t *testing.T) {
	link := "https://hermes.local/runs/r-9"
	tests := []struct {
		name      string
		text      string
		truncated bool
	}{
		// "**t**\n\n" is 7 bytes and "\n\n"+link 31: the body may have 4058.
		{"exactly at the limit", strings.Repeat("a", 4096-7-2-len(link)), false},
		{"one byte over", strings.Repeat("a", 4096-7-2-len(link)+1), true},
		{"Chinese counts three bytes", strings.Repeat("汉", 1400), true},
		{"Chinese under the limit", strings.Repeat("汉", 1300), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := testConfig(t)
			p := newPlatform(t, reply{200, nil, `{"errcode":0,"errmsg":"ok"}`})
			cfg.WeComURL = p.URL
			msg := Message{Title: "t", Text: tc.text, Link: link}
			rep := New(cfg).Deliver(context.Background(), []Target{mustParse(t, "wecom:k-123456789", cfg)}, msg)
			if rep.Delivered == "local" {
				t.Fatalf("not delivered: %+v", rep)
			}
			content := jsonBody(t, p.requests()[0])["markdown"].(map[string]any)["content"].(string)
			if len(content) > WeComLimit || !utf8.ValidString(content) {
				t.Fatalf("content is %d bytes (valid UTF-8: %v)", len(content), utf8.ValidString(content))
			}
			hasNote := strings.HasSuffix(content, "…(truncated; full text: "+link+")")
			if hasNote != tc.truncated {
				t.Errorf("truncated = %v, want %v; tail %q", hasNote, tc.truncated, content[max(0, len(content)-60):])
			}
			if !tc.truncated && content != "**t**\n\n"+tc.text+"\n\n"+link {
				t.Error("an untruncated message was changed")
			}
		})
	}
}

var partHeader = regexp.MustCompile(`^\((\d+)/(\d+)\)\n`)

// joinParts strips the "(i/n)" headers and checks their numbering.
func joinParts(t *testing.T, texts []string) string {
	t.Helper()
	var b strings.Builder
	for i, s := range texts {
		m := partHeader.FindStringSubmatch(s)
		if m == nil || m[1] != strconv.Itoa(i+1) || m[2] != strconv.Itoa(len(texts)) {
			t.Fatalf("part %d header wrong: %q", i+1, s[:min(20, len(s))])
		}
		b.WriteString(s[len(m[0]):])
	}
	return b.String()
}

func TestTelegramSplitsInUTF16(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"ok":true}`})
	cfg.TelegramURL, cfg.TelegramToken = p.URL, "1:tok-abcdefgh"
	// 2,500 emoji are 5,000 UTF-16 units but only 2,500 characters.
	text := strings.Repeat("😀", 2500)
	rep := New(cfg).Deliver(context.Background(), []Target{mustParse(t, "telegram:7", cfg)}, Message{Text: text})
	reqs := p.requests()
	if rep.Delivered != "telegram:7" || len(reqs) != 2 {
		t.Fatalf("delivered %q in %d requests", rep.Delivered, len(reqs))
	}
	var texts []string
	for _, r := range reqs {
		s := jsonBody(t, r)["text"].(string)
		if n := len(utf16.Encode([]rune(s))); n > TelegramLimit {
			t.Errorf("part has %d UTF-16 units", n)
		}
		texts = append(texts, s)
	}
	if joinParts(t, texts) != text {
		t.Error("the parts do not add up to the text")
	}
	if rep.Attempts[0].Part != 1 || rep.Attempts[1].Part != 2 {
		t.Errorf("attempts do not name their parts: %+v", rep.Attempts)
	}
}

func TestSlackSplitsAtLines(t *testing.T) {
	line := strings.Repeat("数据", 49) + "\n" // 99 characters
	text := strings.Repeat(line, 100)       // 9,900 characters
	parts := mustParse(t, "slack:https://hooks.slack.com/services/A/B/C", Config{}).Split(Message{Text: text})
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	var texts []string
	for _, p := range parts {
		if n := utf8.RuneCountInString(p.Text); n > SlackLimit {
			t.Errorf("part %d has %d characters", p.Index, n)
		}
		if !strings.HasSuffix(p.Text, "\n") {
			t.Errorf("part %d does not end at a line break", p.Index)
		}
		texts = append(texts, p.Text)
	}
	if joinParts(t, texts) != text {
		t.Error("the parts do not add up to the text")
	}
}

func TestSeriesCapsParts(t *testing.T) {
	msg := Message{Text: strings.Repeat("x", 100_000), RunID: "r-1"}
	parts := mustParse(t, "slack:https://hooks.slack.com/services/A/B/C", Config{}).Split(msg)
	if len(parts) != maxParts {
		t.Fatalf("%d parts, want %d", len(parts), maxParts)
	}
	if last := parts[len(parts)-1].Text; !strings.HasSuffix(last, "…(truncated; full text in run r-1)") {
		t.Errorf("last part ends %q", last[len(last)-50:])
	}
}

func TestTruncationNoteSaysWhereTheWholeIs(t *testing.T) {
	msg := Message{Text: strings.Repeat("x", 100_000), RunID: "r-1", Full: "hermes sessions show s-42"}
	parts := mustParse(t, "slack:https://hooks.slack.com/services/A/B/C", Config{}).Split(msg)
	if last := parts[len(parts)-1].Text; !strings.HasSuffix(last, "…(truncated; full text: hermes sessions show s-42)") {
		t.Errorf("last part ends %q", last[len(last)-60:])
	}
}
