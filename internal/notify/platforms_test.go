package notify

import (
	"context"
	"reflect"
	"strconv"
	"testing"
)

var sample = Message{
	Title: "日报",
	Text:  "**销售** up 3%\n- item",
	Job:   "daily",
	RunID: "r-42",
	Link:  "https://hermes.local/runs/r-42",
}

// deliverOne sends sample to spec only (the local file stays untouched
// when it succeeds) and returns the report.
func deliverOne(t *testing.T, spec string, cfg Config) Report {
	t.Helper()
	rep := New(cfg).Deliver(context.Background(), []Target{mustParse(t, spec, cfg)}, sample)
	if got := readLocal(t, cfg, "daily"); got != "" && rep.Delivered != "local" {
		t.Errorf("local file written although %s took the message", rep.Delivered)
	}
	return rep
}

func TestWeComMarkdown(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"errcode":0,"errmsg":"ok"}`})
	cfg.WeComURL = p.URL + "/cgi-bin/webhook/send"
	key := "693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa"
	rep := deliverOne(t, "wecom:"+key, cfg)
	if rep.Delivered != "wecom:****5aaa" {
		t.Fatalf("Delivered = %q, report %+v", rep.Delivered, rep)
	}
	reqs := p.requests()
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/cgi-bin/webhook/send" || reqs[0].Query["key"][0] != key {
		t.Fatalf("request = %+v", reqs)
	}
	want := map[string]any{"msgtype": "markdown", "markdown": map[string]any{
		"content": "**日报**\n\n**销售** up 3%\n- item\n\nhttps://hermes.local/runs/r-42",
	}}
	if got := jsonBody(t, reqs[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
	assertNoSecret(t, rep, key)
}

func TestWeComFullURL(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"errcode":0,"errmsg":"ok"}`})
	rep := deliverOne(t, "wecom:"+p.URL+"/cgi-bin/webhook/send?key=abcdef123456", cfg)
	if rep.Delivered != "wecom:****3456" || len(p.requests()) != 1 {
		t.Fatalf("report %+v, %d requests", rep, len(p.requests()))
	}
}

func TestFeishuSigned(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"code":0,"msg":"success","data":{}}`})
	secret := "feishu-signing-secret"
	rep := deliverOne(t, "feishu:"+p.URL+"/open-apis/bot/v2/hook/0a1b2c3d-hook-token#"+secret, cfg)
	if rep.Delivered != "feishu:****oken" {
		t.Fatalf("report %+v", rep)
	}
	got := jsonBody(t, p.requests()[0])
	ts := strconv.FormatInt(fixedNow.Unix(), 10)
	want := map[string]any{
		"msg_type":  "text",
		"content":   map[string]any{"text": "日报\n\n**销售** up 3%\n- item\n\nhttps://hermes.local/runs/r-42"},
		"timestamp": ts,
		// Recomputed here from the documented recipe: HMAC-SHA256 keyed
		// by "timestamp\nsecret" over nothing, base64.
		"sign": hmacB64(ts+"\n"+secret, ""),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
	assertNoSecret(t, rep, secret, "0a1b2c3d-hook-token")
}

func TestDingTalkSigned(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"errcode":0,"errmsg":"ok"}`})
	cfg.DingTalkURL = p.URL + "/robot/send"
	secret := "SECd2f1e0aa9b8c7"
	rep := deliverOne(t, "dingtalk:tok123456789#"+secret, cfg)
	if rep.Delivered != "dingtalk:****6789" {
		t.Fatalf("report %+v", rep)
	}
	r := p.requests()[0]
	ts := strconv.FormatInt(fixedNow.UnixMilli(), 10)
	if r.Path != "/robot/send" || r.Query["access_token"][0] != "tok123456789" || r.Query["timestamp"][0] != ts {
		t.Fatalf("request %s %v", r.Path, r.Query)
	}
	// The query was URL-encoded; decoded it must equal the recomputed
	// signature: HMAC-SHA256 keyed by the secret over "timestamp\nsecret".
	if want := hmacB64(secret, ts+"\n"+secret); r.Query["sign"][0] != want {
		t.Errorf("sign = %q, want %q", r.Query["sign"][0], want)
	}
	want := map[string]any{"msgtype": "markdown", "markdown": map[string]any{
		"title": "日报",
		"text":  "**日报**\n\n**销售** up 3%\n- item\n\nhttps://hermes.local/runs/r-42",
	}}
	if got := jsonBody(t, r); !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
	assertNoSecret(t, rep, secret, "tok123456789")
}

func TestSlack(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, "ok"})
	rep := deliverOne(t, "slack:"+p.URL+"/services/T000/B000/XXXXSECRET", cfg)
	if rep.Delivered != "slack:"+p.URL+"/****" {
		t.Fatalf("report %+v", rep)
	}
	r := p.requests()[0]
	want := map[string]any{"text": "*日报*\n\n**销售** up 3%\n- item\n\nhttps://hermes.local/runs/r-42"}
	if got := jsonBody(t, r); r.Path != "/services/T000/B000/XXXXSECRET" || !reflect.DeepEqual(got, want) {
		t.Errorf("%s body = %v, want %v", r.Path, got, want)
	}
	assertNoSecret(t, rep, "XXXXSECRET")
}

func TestTelegram(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{200, nil, `{"ok":true,"result":{"message_id":7}}`})
	cfg.TelegramURL = p.URL
	cfg.TelegramToken = "123456:ABC-DEF1234ghIkl"
	rep := deliverOne(t, "telegram:-1001234567890", cfg)
	if rep.Delivered != "telegram:-1001234567890" {
		t.Fatalf("report %+v", rep)
	}
	r := p.requests()[0]
	if r.Path != "/bot123456:ABC-DEF1234ghIkl/sendMessage" {
		t.Errorf("path = %q", r.Path)
	}
	want := map[string]any{"chat_id": "-1001234567890", "text": "日报\n\n**销售** up 3%\n- item\n\nhttps://hermes.local/runs/r-42"}
	if got := jsonBody(t, r); !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
}

func TestWebhookJSON(t *testing.T) {
	cfg, _ := testConfig(t)
	p := newPlatform(t, reply{204, nil, ""})
	rep := deliverOne(t, "webhook:"+p.URL+"/hooks/results?token=s3cr3t-token", cfg)
	if rep.Delivered != "webhook:"+p.URL+"/****" {
		t.Fatalf("report %+v", rep)
	}
	r := p.requests()[0]
	want := map[string]any{
		"title": "日报", "text": "**销售** up 3%\n- item", "job": "daily", "run_id": "r-42",
		"link": "https://hermes.local/runs/r-42", "time": "2026-03-02T09:00:00Z",
	}
	if got := jsonBody(t, r); !reflect.DeepEqual(got, want) {
		t.Errorf("body = %v, want %v", got, want)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	assertNoSecret(t, rep, "s3cr3t-token")
}
