// Package wecomcrypt is WeCom's callback cryptography (WXBizMsgCrypt):
// the msg_signature over token, timestamp, nonce and the encrypted text,
// and AES-256-CBC with the EncodingAESKey. Both the adapter and its test
// server use it, and its tests hold it to WeCom's published example, so
// the two cannot agree on a mistake.
package wecomcrypt

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// KeyLen is the length of an EncodingAESKey: 43 base64 characters,
// 32 bytes once decoded.
const KeyLen = 43

// blockSize is what WeCom pads to: 32 bytes, not AES's 16.
const blockSize = 32

// MaxMessage bounds a decrypted message; callbacks are a few KB.
const MaxMessage = 1 << 20

// Crypter signs, verifies, encrypts and decrypts one app's callbacks.
type Crypter struct {
	token     string
	key       []byte
	receiveID string
}

// New returns a Crypter for the app's Token and EncodingAESKey; receiveID
// is what every message must end with (the corp id for a self-built app,
// "" for an AI bot's JSON callbacks). Errors never hold the key or token.
func New(token, encodingAESKey, receiveID string) (*Crypter, error) {
	if token == "" {
		return nil, errors.New("wecomcrypt: the token is empty; give the Token shown on the app's API receive page")
	}
	if len(encodingAESKey) != KeyLen {
		return nil, fmt.Errorf("wecomcrypt: the EncodingAESKey has %d characters; want the %d letters and digits shown on the app's API receive page", len(encodingAESKey), KeyLen)
	}
	key, err := base64.StdEncoding.DecodeString(encodingAESKey + "=")
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("wecomcrypt: the EncodingAESKey (%d characters) is not base64 of 32 bytes; want the %d letters and digits shown on the app's API receive page", len(encodingAESKey), KeyLen)
	}
	return &Crypter{token: token, key: key, receiveID: receiveID}, nil
}

// Signature is msg_signature: the hex SHA-1 of token, timestamp, nonce
// and the encrypted text, sorted and joined.
func (c *Crypter) Signature(timestamp, nonce, encrypted string) string {
	parts := []string{c.token, timestamp, nonce, encrypted}
	sort.Strings(parts)
	sum := sha1.Sum([]byte(strings.Join(parts, "")))
	return hex.EncodeToString(sum[:])
}

// Verify reports whether signature is the msg_signature of the rest, in
// constant time.
func (c *Crypter) Verify(signature, timestamp, nonce, encrypted string) bool {
	want := c.Signature(timestamp, nonce, encrypted)
	return subtle.ConstantTimeCompare([]byte(strings.ToLower(signature)), []byte(want)) == 1
}

// Decrypt opens encrypted (base64) and returns the message, after
// checking its padding, its length and that it ends with the receive id.
func (c *Crypter) Decrypt(encrypted string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil {
		return nil, errors.New("wecomcrypt: the encrypted text is not base64")
	}
	if len(raw) == 0 || len(raw)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("wecomcrypt: the encrypted text is %d bytes, not whole AES blocks", len(raw))
	}
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return nil, err
	}
	plain := make([]byte, len(raw))
	cipher.NewCBCDecrypter(block, c.key[:aes.BlockSize]).CryptBlocks(plain, raw)
	pad := int(plain[len(plain)-1])
	if pad < 1 || pad > blockSize || pad > len(plain) {
		return nil, errors.New("wecomcrypt: the padding is wrong (another key encrypted it?)")
	}
	for _, b := range plain[len(plain)-pad:] {
		if int(b) != pad {
			return nil, errors.New("wecomcrypt: the padding is wrong (another key encrypted it?)")
		}
	}
	plain = plain[:len(plain)-pad]
	if len(plain) < 20 {
		return nil, errors.New("wecomcrypt: the decrypted text is too short to hold a message")
	}
	n := binary.BigEndian.Uint32(plain[16:20])
	if n > MaxMessage || int(n) > len(plain)-20 {
		return nil, fmt.Errorf("wecomcrypt: the message claims %d bytes but %d follow", n, len(plain)-20)
	}
	msg, rid := plain[20:20+n], plain[20+n:]
	if subtle.ConstantTimeCompare(rid, []byte(c.receiveID)) != 1 {
		return nil, fmt.Errorf("wecomcrypt: the message is for %q, not %q", clip(string(rid)), c.receiveID)
	}
	return msg, nil
}

// Encrypt seals msg as WeCom does: 16 random bytes, the length, the
// message and the receive id, padded to 32 bytes and encrypted; random
// gives the 16 bytes.
func (c *Crypter) Encrypt(msg []byte, random io.Reader) (string, error) {
	var buf bytes.Buffer
	prefix := make([]byte, 16)
	if _, err := io.ReadFull(random, prefix); err != nil {
		return "", fmt.Errorf("wecomcrypt: reading random bytes: %w", err)
	}
	buf.Write(prefix)
	binary.Write(&buf, binary.BigEndian, uint32(len(msg)))
	buf.Write(msg)
	buf.WriteString(c.receiveID)
	pad := blockSize - buf.Len()%blockSize
	buf.Write(bytes.Repeat([]byte{byte(pad)}, pad))
	block, err := aes.NewCipher(c.key)
	if err != nil {
		return "", err
	}
	out := make([]byte, buf.Len())
	cipher.NewCBCEncrypter(block, c.key[:aes.BlockSize]).CryptBlocks(out, buf.Bytes())
	return base64.StdEncoding.EncodeToString(out), nil
}

// clip shortens what a forged message claims, for an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
