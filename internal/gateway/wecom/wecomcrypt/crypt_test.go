package wecomcrypt_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/gateway/wecom/wecomcrypt"
)

// WeCom's published URL-verification example.
const (
	sampleToken  = "QDG6eK"
	sampleKey    = "jWmYm7qr5nMoAUwZRjGtBxmz3KA1tkAj3ykkR6q2B2C"
	sampleCorp   = "wx5823bf96d3bd56c7"
	sampleTS     = "1409659589"
	sampleNonce  = "263014780"
	sampleEcho   = "P9nAzCzyDtyTWESHep1vC5X9xho/qYX3Zpb4yKa9SKld1DsH3Iyt3tP3zNdtp+4RPcs8TgAE7OaBO+FZXvnaqQ=="
	sampleSig    = "5c45ff5e21c57e6ad56bac8758b79b1d9ac89fd3"
	samplePlain  = "1616140317555161061"
	anotherCorp  = "wwffffffffffffffff"
	anotherToken = "other-token"
)

func sample(t *testing.T, receiveID string) *wecomcrypt.Crypter {
	t.Helper()
	c, err := wecomcrypt.New(sampleToken, sampleKey, receiveID)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestKnownAnswerURLVerification(t *testing.T) {
	c := sample(t, sampleCorp)
	if got := c.Signature(sampleTS, sampleNonce, sampleEcho); got != sampleSig {
		t.Errorf("signature %s, want %s", got, sampleSig)
	}
	if !c.Verify(sampleSig, sampleTS, sampleNonce, sampleEcho) {
		t.Error("the sample's signature does not verify")
	}
	msg, err := c.Decrypt(sampleEcho)
	if err != nil {
		t.Fatal(err)
	}
	if string(msg) != samplePlain {
		t.Errorf("echostr decrypts to %q, want %q", msg, samplePlain)
	}
}

// Every part of the signature counts: changing any one of them, or
// signing with another token, fails.
func TestVerifyRefusesAnyChange(t *testing.T) {
	c := sample(t, sampleCorp)
	other, _ := wecomcrypt.New(anotherToken, sampleKey, sampleCorp)
	cases := map[string]bool{
		"timestamp":   c.Verify(sampleSig, "1409659590", sampleNonce, sampleEcho),
		"nonce":       c.Verify(sampleSig, sampleTS, "263014781", sampleEcho),
		"echostr":     c.Verify(sampleSig, sampleTS, sampleNonce, "Q"+sampleEcho[1:]),
		"signature":   c.Verify("0"+sampleSig[1:], sampleTS, sampleNonce, sampleEcho),
		"empty":       c.Verify("", sampleTS, sampleNonce, sampleEcho),
		"other token": other.Verify(sampleSig, sampleTS, sampleNonce, sampleEcho),
	}
	for name, ok := range cases {
		if ok {
			t.Errorf("a changed %s still verifies", name)
		}
	}
}

// A message sealed for another corp, with another key, or damaged is
// refused, and no error holds the key.
func TestDecryptRefusesForeignAndDamaged(t *testing.T) {
	if _, err := sample(t, anotherCorp).Decrypt(sampleEcho); err == nil || !strings.Contains(err.Error(), sampleCorp) {
		t.Errorf("a message for another corp: %v", err)
	}
	otherKey := strings.Repeat("A", wecomcrypt.KeyLen)
	c2, err := wecomcrypt.New(sampleToken, otherKey, sampleCorp)
	if err != nil {
		t.Fatal(err)
	}
	for name, enc := range map[string]string{
		"other key":   mustEncrypt(t, c2, "hello"),
		"not base64":  "%%%",
		"half block":  "AAAAAAAAAAAAAAAAAAAAAA==",
		"empty":       "",
		"truncated":   sampleEcho[:44],
		"length lies": lengthLies(t),
	} {
		_, err := sample(t, sampleCorp).Decrypt(enc)
		if err == nil {
			t.Errorf("%s: decrypted", name)
			continue
		}
		if strings.Contains(err.Error(), sampleKey) || strings.Contains(err.Error(), sampleToken) {
			t.Errorf("%s: the error holds a secret: %v", name, err)
		}
	}
}

// lengthLies is a message sealed with the right key whose length field
// claims more bytes than follow it.
func lengthLies(t *testing.T) string {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(sampleKey + "=")
	plain := make([]byte, 16, 64)
	plain = binary.BigEndian.AppendUint32(plain, 1000)
	plain = append(plain, "hi"+sampleCorp...)
	pad := 32 - len(plain)%32
	plain = append(plain, bytes.Repeat([]byte{byte(pad)}, pad)...)
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(plain))
	cipher.NewCBCEncrypter(block, key[:16]).CryptBlocks(out, plain)
	return base64.StdEncoding.EncodeToString(out)
}

func mustEncrypt(t *testing.T, c *wecomcrypt.Crypter, msg string) string {
	t.Helper()
	enc, err := c.Encrypt([]byte(msg), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// Encrypt and Decrypt are inverses at every length around the 32-byte
// block, so the padding is right at its edges.
func TestRoundTripAcrossBlockEdges(t *testing.T) {
	c := sample(t, sampleCorp)
	for n := 0; n <= 70; n++ {
		msg := bytes.Repeat([]byte("中"), n)[:n]
		got, err := c.Decrypt(mustEncrypt(t, c, string(msg)))
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("length %d: %q, %v", n, got, err)
		}
	}
}

func TestNewRefusesBadKeysWithoutEchoingThem(t *testing.T) {
	for _, key := range []string{"", "short", sampleKey + "A", strings.Repeat("!", wecomcrypt.KeyLen)} {
		_, err := wecomcrypt.New(sampleToken, key, sampleCorp)
		if err == nil {
			t.Errorf("key %q accepted", key)
			continue
		}
		if key != "" && strings.Contains(err.Error(), key) {
			t.Errorf("the error holds the key: %v", err)
		}
		if !strings.Contains(err.Error(), "EncodingAESKey") {
			t.Errorf("the error does not name the setting: %v", err)
		}
	}
	if _, err := wecomcrypt.New("", sampleKey, sampleCorp); err == nil {
		t.Error("an empty token accepted")
	}
}
