package feishutest

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// Encrypt seals an event's JSON as Feishu does for the "encrypt" field:
// AES-256-CBC under SHA-256(key), PKCS#7 padding, a random IV before the
// ciphertext, all in base64.
func Encrypt(key string, plain []byte) string {
	k := sha256.Sum256([]byte(key))
	block, err := aes.NewCipher(k[:])
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	pad := aes.BlockSize - len(plain)%aes.BlockSize
	data := append(bytes.Clone(plain), bytes.Repeat([]byte{byte(pad)}, pad)...)
	out := make([]byte, aes.BlockSize+len(data))
	_, _ = rand.Read(out[:aes.BlockSize])
	cipher.NewCBCEncrypter(block, out[:aes.BlockSize]).CryptBlocks(out[aes.BlockSize:], data)
	return base64.StdEncoding.EncodeToString(out)
}

// Sign is X-Lark-Signature: hex SHA-256 of timestamp, nonce, key and body.
func Sign(timestamp, nonce, key string, body []byte) string {
	sum := sha256.Sum256(append([]byte(timestamp+nonce+key), body...))
	return hex.EncodeToString(sum[:])
}
