package config

import (
	"fmt"
	"strings"
	"testing"
)

// gateway.matrix loads with its secrets from .env, and is on only when a
// token or password is set.
func TestMatrixGatewayLoads(t *testing.T) {
	l := mustLoad(t, map[string]string{
		"config.yaml": "gateway:\n  matrix:\n    homeserver: https://matrix.example.org\n    user_id: \"@hermes:example.org\"\n    access_token: ${MATRIX_ACCESS_TOKEN}\n    allow: [\"@alice:example.org\"]\n    approvers: [\"@alice:example.org\"]\n",
		".env":        "MATRIX_ACCESS_TOKEN=syt_secret_token\n",
	}, nil, nil)
	m := l.Config.Gateway.Matrix
	if !m.On() || string(m.AccessToken) != "syt_secret_token" || m.Homeserver != "https://matrix.example.org" || m.Allow[0] != "@alice:example.org" {
		t.Errorf("gateway.matrix = %+v", m)
	}
	if strings.Contains(fmt.Sprintf("%v %+v", m, m), "syt_secret_token") {
		t.Error("the access token prints unredacted")
	}
	if (MatrixGateway{}).On() {
		t.Error("an empty section turns Matrix on")
	}
}

// Each mistake in gateway.matrix is refused with the key, the value and
// what is accepted.
func TestMatrixGatewayRefusesBadSettings(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"gateway:\n  matrix: {access_token: t}\n", `gateway.matrix.homeserver: "" is not accepted; give the homeserver's Client-Server API root`},
		{"gateway:\n  matrix: {homeserver: \"matrix.example.org\", access_token: t}\n", `gateway.matrix.homeserver`},
		{"gateway:\n  matrix: {homeserver: \"https://m.example.org\", password: p}\n", `gateway.matrix.user_id: "" is not accepted with a password`},
		{"gateway:\n  matrix: {homeserver: \"https://m.example.org\", access_token: t, user_id: hermes}\n", `gateway.matrix.user_id: "hermes" is not accepted; give a Matrix user id`},
		{"gateway:\n  matrix: {homeserver: \"https://m.example.org\", access_token: t, allow: [alice]}\n", `gateway.matrix.allow: "alice" is not accepted; list Matrix user ids`},
		{"gateway:\n  matrix: {homeserver: \"https://m.example.org\", access_token: t, approvers: [\"@bob\"]}\n", `gateway.matrix.approvers: "@bob" is not accepted`},
		{"gateway:\n  matrix: {homeserver: \"https://m.example.org\"}\n", `gateway.matrix.access_token: "" is not accepted with gateway.matrix.homeserver or user_id set`},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}
