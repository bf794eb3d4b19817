package feishu_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/feishu"
	"github.com/hermes-go/hermes/internal/gateway/feishu/feishutest"
)

// Feishu's published decryption example and the signature vector of
// PLATFORMS.md §10.
func TestKnownAnswerVectors(t *testing.T) {
	got, err := feishu.Decrypt("test key", "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=")
	if err != nil || string(got) != "hello world" {
		t.Errorf("Decrypt = %q, %v; want hello world", got, err)
	}
	const sig = "fb9fc21a71b4f7439cb2f27d9e1884cab8a11161a18ebeacbfbcdc73260b61c6"
	if s := feishu.Signature("1700000000", "nonce123", "enckey", []byte(`{"encrypt":"x"}`)); s != sig {
		t.Errorf("Signature = %s, want %s", s, sig)
	}
	// The test server seals as Feishu does, by code of its own.
	if s := feishutest.Sign("1700000000", "nonce123", "enckey", []byte(`{"encrypt":"x"}`)); s != sig {
		t.Errorf("feishutest.Sign = %s, want %s", s, sig)
	}
	for _, plain := range []string{"", "x", "exactly sixteen!", strings.Repeat("事件", 100)} {
		got, err := feishu.Decrypt("k", feishutest.Encrypt("k", []byte(plain)))
		if err != nil || string(got) != plain {
			t.Errorf("round trip of %q = %q, %v", plain, got, err)
		}
	}
}

// What does not open with the key is refused, whatever is wrong with it.
func TestDecryptRefusesWhatDoesNotOpen(t *testing.T) {
	good := feishutest.Encrypt("right key", []byte(`{"schema":"2.0"}`))
	for name, enc := range map[string]string{
		"other key":  feishutest.Encrypt("wrong key", []byte(`{"schema":"2.0"}`)),
		"not base64": "%%%",
		"short":      "AAAA",
		"not blocks": good[:len(good)-8] + "AAAA",
		"empty":      "",
		"only an IV": "AAAAAAAAAAAAAAAAAAAAAA==",
	} {
		if got, err := feishu.Decrypt("right key", enc); err == nil && string(got) == `{"schema":"2.0"}` {
			t.Errorf("%s: opened", name)
		} else if err == nil && name != "other key" {
			t.Errorf("%s: no error, got %q", name, got)
		}
	}
}
