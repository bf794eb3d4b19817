package app

import (
	"slices"
	"testing"

	"github.com/hermes-go/hermes/internal/config"
)

// Hermes Agent keeps a platform's allowlist in .env; hermes reads it when
// config.yaml gives none, and config.yaml's wins.
func TestEnvAllow(t *testing.T) {
	env := config.MapLookup(map[string]string{
		"TELEGRAM_ALLOWED_USERS": " 111, 222 ,",
		"DISCORD_ALLOWED_USERS":  "*",
		"WECOM_ALLOWED_USERS":    "zhangsan",
	})
	for _, tc := range []struct {
		name     string
		in, want access
	}{
		{"telegram", access{}, access{allow: []string{"111", "222"}}},
		{"discord", access{}, access{allowAll: true}},
		{"wecombot", access{}, access{allow: []string{"zhangsan"}}},
		{"slack", access{}, access{}},
		{"telegram", access{allow: []string{"999"}}, access{allow: []string{"999"}}},
	} {
		got := envAllow(env, tc.name, tc.in)
		if got.allowAll != tc.want.allowAll || !slices.Equal(got.allow, tc.want.allow) {
			t.Errorf("%s from %+v: %+v, want %+v", tc.name, tc.in, got, tc.want)
		}
	}
}
