package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// hmacB64 is base64(HMAC-SHA256(key, msg)), written out independently of
// the package's signers.
func hmacB64(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Known answers computed once with Python's hmac module, so both signers
// are checked against something other than Go's own code.
func TestSignKnownAnswers(t *testing.T) {
	if got, want := FeishuSign("1599360473", "demo"), pyFeishu; got != want {
		t.Errorf("FeishuSign = %q, want %q", got, want)
	}
	if got, want := DingTalkSign("1599360473000", "SECdemo"), pyDingTalk; got != want {
		t.Errorf("DingTalkSign = %q, want %q", got, want)
	}
}

const (
	pyFeishu   = "l1N0gAcBjdwBvGm1xMjOF0XSyaLRpR7tuO5dHfhAYc8="
	pyDingTalk = "tGWkA5eQOQNCNPDgphtxIoNLO+/gD8Lcb705KQoRzeY="
)
