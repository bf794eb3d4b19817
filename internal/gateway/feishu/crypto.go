package feishu

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// Decrypt opens the "encrypt" field of an event Feishu posts when an
// Encrypt Key is set: the field is base64 of a 16-byte IV followed by the
// AES-256-CBC ciphertext of the event's JSON, padded with PKCS#7, under
// the key SHA-256(encryptKey).
func Decrypt(encryptKey, encrypted string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil {
		return nil, errors.New("feishu: the encrypt field is not base64")
	}
	if len(raw) < 2*aes.BlockSize || len(raw)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("feishu: the encrypt field decodes to %d bytes; want an IV and whole 16-byte blocks", len(raw))
	}
	key := sha256.Sum256([]byte(encryptKey))
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, err
	}
	iv, data := raw[:aes.BlockSize], bytes.Clone(raw[aes.BlockSize:])
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(data, data)
	n := int(data[len(data)-1])
	if n < 1 || n > aes.BlockSize || n > len(data) {
		return nil, errors.New("feishu: the encrypt field does not open with the encrypt key (bad padding)")
	}
	for _, b := range data[len(data)-n:] {
		if int(b) != n {
			return nil, errors.New("feishu: the encrypt field does not open with the encrypt key (bad padding)")
		}
	}
	return data[:len(data)-n], nil
}

// Signature is X-Lark-Signature for a post: the hex SHA-256 (not an
// HMAC) of timestamp, nonce, the encrypt key and the raw body, joined.
func Signature(timestamp, nonce, encryptKey string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(timestamp))
	h.Write([]byte(nonce))
	h.Write([]byte(encryptKey))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// validSignature compares a post's signature with the one its body and
// headers call for, in constant time.
func validSignature(got, timestamp, nonce, encryptKey string, body []byte) bool {
	want := Signature(timestamp, nonce, encryptKey, body)
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// equalSecret compares a token from a post with the configured one in
// constant time; an empty configured token matches nothing.
func equalSecret(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
