package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestLogsAreRedacted(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewTextHandler(&buf, nil)))
	token := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	log.With(slog.String("auth", "Bearer sk-proj-abcdefghijklmnopqrstuvwxyzABCDEF123456")).
		WithGroup("call").
		Info("sending "+token, slog.Any("error", errors.New("401 for key sk-ant-api03-abcdefghijklmnopqrstuvwxyz")),
			slog.Group("req", slog.String("url", "https://api.example.com/v1?api_key=abcdef1234567890")), slog.Int("tokens", 12))
	out := buf.String()
	for _, secret := range []string{token, "sk-proj-abcdefghijklmnopqrstuvwxyzABCDEF123456", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "abcdef1234567890"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %s:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "tokens=12") || !strings.Contains(out, "[REDACTED:") {
		t.Errorf("log = %s", out)
	}
}
