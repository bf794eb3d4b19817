package config

import (
	"strings"
	"testing"
)

// api: the defaults, the keys from .env, and every wrong value refused
// with its key and what is accepted.
func TestAPISection(t *testing.T) {
	l := mustLoad(t, map[string]string{"config.yaml": "api:\n  enabled: true\n  keys: [\"${K}\"]\n  cors_origins: [\"https://chat.example.com\"]\n"},
		map[string]string{"K": "sk-hermes-1"}, nil)
	if a := l.Config.API; !a.Enabled || a.Listen != "127.0.0.1:8642" || len(a.Keys) != 1 || string(a.Keys[0]) != "sk-hermes-1" || a.MaxConcurrentRuns != 8 || a.MaxBodyBytes != 10<<20 || a.Sessions != APISessionsAPI {
		t.Errorf("api = %+v", a)
	}
	for _, tt := range []struct{ yaml, want string }{
		{"api: {listen: \"8642\"}\n", "api.listen: \"8642\" is not accepted; use HOST:PORT"},
		{"api: {max_concurrent_runs: 0}\n", "api.max_concurrent_runs: \"0\" is not accepted"},
		{"api: {max_body_bytes: 10}\n", "api.max_body_bytes: \"10\" is not accepted"},
		{"api: {keys: [\"\"]}\n", "api.keys[0]"},
		{"api: {cors_origins: [\"*\"]}\n", "api.cors_origins[0]: \"*\" is not accepted"},
		{"api: {cors_origins: [\"https://a.example/path\"]}\n", "api.cors_origins[0]"},
		{"api: {sessions: telegram}\n", "api.sessions: \"telegram\" is not accepted; use api (only the sessions the API started) or all"},
		{"api: {sessions: \"\"}\n", "api.sessions: \"\" is not accepted"},
		{"api: {advertise: \"10.0.0.5:8642\"}\n", "api.advertise: \"10.0.0.5:8642\" is not accepted; use the URL other replicas reach this API at"},
		{"api: {advertise: \"ftp://10.0.0.5\"}\n", "api.advertise: \"ftp://10.0.0.5\" is not accepted"},
		{"api: {advertise: \"http://10.0.0.5:8642/v1\"}\n", "api.advertise"},
	} {
		_, err := loadFiles(t, map[string]string{"config.yaml": tt.yaml}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error naming %q", tt.yaml, err, tt.want)
		}
	}
}

// The URL other replicas reach the API at: api.advertise when set, else
// the listen address, with the machine's name for an address that is
// every address.
func TestAPIAdvertisedURL(t *testing.T) {
	for _, tt := range []struct{ listen, advertise, want string }{
		{"127.0.0.1:8642", "", "http://127.0.0.1:8642"},
		{"10.0.0.5:9000", "", "http://10.0.0.5:9000"},
		{"0.0.0.0:8642", "", "http://box.lan:8642"},
		{"[::]:8642", "", "http://box.lan:8642"},
		{":8642", "", "http://box.lan:8642"},
		{"[fd00::5]:8642", "", "http://[fd00::5]:8642"},
		{"0.0.0.0:8642", "https://hermes-2.internal:8443/", "https://hermes-2.internal:8443"},
	} {
		if got := (API{Listen: tt.listen, Advertise: tt.advertise}).AdvertisedURL("box.lan"); got != tt.want {
			t.Errorf("listen %q, advertise %q: %q, want %q", tt.listen, tt.advertise, got, tt.want)
		}
	}
}
