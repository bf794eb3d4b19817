package shell

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The filters that turn a literal payload into a command: base64, base32,
// hex (xxd -r), reversal (rev, tac), character translation (tr), sed
// substitutions and decompression. Each either computes its output
// exactly or reports it unknown.

// transform returns what filter name with args writes when it reads in.
func (e *env) transform(name string, args []string, in string) (string, bool) {
	switch name {
	case "base64", "base32", "basenc":
		return baseDecode(name, args, in)
	case "openssl":
		if slices.Contains(args, "-d") && (slices.Contains(args, "base64") || slices.Contains(args, "-base64") || slices.Contains(args, "-a")) {
			return baseDecode("base64", []string{"-d"}, in)
		}
	case "xxd":
		return xxdReverse(args, in)
	case "rev":
		return mapLines(in, func(l string) string {
			r := []rune(l)
			slices.Reverse(r)
			return string(r)
		}), true
	case "tac":
		lines := strings.SplitAfter(strings.TrimSuffix(in, "\n"), "\n")
		slices.Reverse(lines)
		return strings.Join(lines, "\n") + "\n", true
	case "tr":
		return translate(args, in)
	case "sed":
		return sedSubstitute(args, in)
	case "gzip", "gunzip", "zcat", "bzip2", "bunzip2", "bzcat":
		out, ok := decompress(name, args, in)
		if !ok && len(out) > maxOutputBytes && e != nil {
			e.overflow = true
		}
		return out, ok
	}
	return "", false
}

// mapLines applies f to each line of s.
func mapLines(s string, f func(string) string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n")
}

// baseDecode decodes base64, base32 or base16 (basenc's --base16) text
// when the call decodes (-d, -D, --decode); encoding is unknown output.
func baseDecode(name string, args []string, in string) (string, bool) {
	decode := false
	for _, a := range args {
		switch {
		case a == "--decode" || strings.HasPrefix(a, "--dec"):
			decode = true
		case strings.HasPrefix(a, "--base"):
			name = strings.TrimPrefix(a, "--")
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			decode = decode || strings.ContainsAny(a, "dD")
		}
	}
	if !decode {
		return "", false
	}
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, in)
	var encs []interface {
		DecodeString(string) ([]byte, error)
	}
	switch name {
	case "base64", "basenc":
		encs = append(encs, base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding)
	case "base64url":
		encs = append(encs, base64.URLEncoding, base64.RawURLEncoding)
	case "base32":
		encs = append(encs, base32.StdEncoding, base32.StdEncoding.WithPadding(base32.NoPadding))
	case "base32hex":
		encs = append(encs, base32.HexEncoding, base32.HexEncoding.WithPadding(base32.NoPadding))
	case "base16":
		b, err := hex.DecodeString(clean)
		return string(b), err == nil
	default:
		return "", false
	}
	for _, enc := range encs {
		if b, err := enc.DecodeString(clean); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// xxdReverse decodes xxd -r: plain hex with -p, else a hex dump whose
// lines are "offset: hex hex …  text".
func xxdReverse(args []string, in string) (string, bool) {
	reverse, plain := false, false
	for _, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			reverse = reverse || strings.Contains(a, "r")
			plain = plain || strings.Contains(a, "p")
		}
		reverse = reverse || a == "-revert"
		plain = plain || a == "-ps" || a == "-postscript" || a == "-plain"
	}
	if !reverse {
		return "", false
	}
	var digits strings.Builder
	if plain {
		digits.WriteString(in)
	} else {
		for _, line := range strings.Split(in, "\n") {
			if _, rest, ok := strings.Cut(line, ":"); ok {
				line = rest
			}
			if i := strings.Index(line, "  "); i >= 0 {
				line = line[:i+1]
			}
			digits.WriteString(line)
		}
	}
	hexText := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && isHex(byte(r)) {
			return r
		}
		return -1
	}, digits.String())
	b, err := hex.DecodeString(hexText[:len(hexText)&^1])
	return string(b), err == nil
}

// decompress undoes gzip and bzip2 compression (gzip -d, gunzip, zcat,
// bzip2 -d, bunzip2, bzcat); xz and zstd output is unknown. Output past
// maxOutputBytes is returned cut, and not ok.
func decompress(name string, args []string, in string) (string, bool) {
	if name == "gzip" || name == "bzip2" {
		d := false
		for _, a := range args {
			d = d || a == "--decompress" || a == "--uncompress" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.Contains(a, "d")
		}
		if !d {
			return "", false
		}
	}
	var r io.Reader
	if strings.HasPrefix(name, "b") {
		r = bzip2.NewReader(strings.NewReader(in))
	} else {
		z, err := gzip.NewReader(strings.NewReader(in))
		if err != nil {
			return "", false
		}
		r = z
	}
	var out bytes.Buffer
	if _, err := io.Copy(&out, io.LimitReader(r, maxOutputBytes+1)); err != nil || out.Len() > maxOutputBytes {
		return out.String(), false
	}
	return out.String(), true
}
