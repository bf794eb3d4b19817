package config

import (
	"strings"
	"testing"
)

// gateway.dingtalk: its defaults, and each setting that cannot work named
// with its key, its value and what is accepted.
func TestGatewayDingTalkSection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "gateway:\n  dingtalk:\n    client_id: dingabc\n    client_secret: ${DINGTALK_CLIENT_SECRET}\n    allow: [\"manager42\"]\n"},
		map[string]string{"DINGTALK_CLIENT_SECRET": "s3cret-value"}, nil)
	d := l.Config.Gateway.DingTalk
	if d.ClientID != "dingabc" || d.ClientSecret != "s3cret-value" || d.Mode != "" || d.Path != "" || len(d.Allow) != 1 {
		t.Errorf("gateway.dingtalk = %+v", d)
	}
	for _, c := range []struct{ yaml, want string }{
		{"gateway:\n  dingtalk: {mode: websocket}\n", "stream, http"},
		{"gateway:\n  dingtalk: {base_url: \"ftp://x\"}\n", "gateway.dingtalk.base_url"},
		{"gateway:\n  dingtalk: {client_id: dingabc}\n", "gateway.dingtalk.client_secret: \"\" is not accepted with a client_id"},
		{"gateway:\n  dingtalk: {client_secret: xyz}\n", "gateway.dingtalk.client_id: \"\" is not accepted with a client_secret"},
		{"gateway:\n  dingtalk: {client_id: \"ding abc\", client_secret: xyz}\n", "gateway.dingtalk.client_id: \"ding abc\" is not accepted"},
		{"gateway:\n  dingtalk: {client_id: dingabc, client_secret: xyz, mode: http, path: dingtalk}\n", "gateway.dingtalk.path: \"dingtalk\" is not accepted; use a URL path starting with /"},
		{"gateway:\n  dingtalk: {client_id: dingabc, client_secret: xyz, mode: http}\n  webhook:\n    routes:\n      a: {path: /dingtalk, auth: bearer, secret: s, prompt: p}\n",
			"gateway.dingtalk.path: \"/dingtalk\" is not accepted; gateway.webhook.routes.a.path answers on that path"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": c.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one holding %q", c.yaml, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "xyz") && strings.Contains(c.want, "client_secret") {
			t.Errorf("%q: the secret is in the error: %v", c.yaml, err)
		}
	}
}
