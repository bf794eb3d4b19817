package email

import (
	"html"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"

	"github.com/hermes-go/hermes/internal/lazy"
)

// Mail programs quote the whole thread under a reply. The model has the
// thread in its session already, and a quoted "/approve" or an old
// instruction must not act again, so only what the sender wrote now is
// kept: the text above the first attribution line ("On … wrote:", in
// the languages mail programs write it), forwarded-message marker or
// signature, without lines quoted with ">".

// attribution matches the line a mail program writes above a quote, in
// one line or wrapped over two.
var attribution = lazy.Regexp{Expr: `(?i)^\s*(` +
	`on\b.*\bwrote\s*:` + // English (Gmail, Apple Mail, Thunderbird)
	`|le\b.*\ba écrit\s*:` + // French
	`|am\b.*\bschrieb.*:` + // German
	`|el\b.*\bescribió\s*:` + // Spanish
	`|il\b.*\bha scritto\s*:` + // Italian
	`|op\b.*\bschreef.*:` + // Dutch
	`|em\b.*\bescreveu\s*:` + // Portuguese
	`|.*(写道|寫道)\s*[:：]` + // Chinese
	`|.*のメッセージ\s*[:：]?` + // Japanese
	`)\s*$`}

// separator matches the lines that start a forwarded or quoted message
// (Outlook, most webmail), and the signature delimiter.
var separator = lazy.Regexp{Expr: `(?i)^\s*(-{2,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|原始邮件|原始郵件)\s*-{2,}` +
	`|_{20,}` + // Outlook's rule above its header block
	`|begin forwarded message:` +
	`|-- ` + // RFC 3676 signature delimiter
	`)\s*$`}

// stripQuotes returns the part of text the sender wrote now.
func stripQuotes(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var kept []string
	for i, line := range lines {
		if separator.Get().MatchString(line) || line == "--" {
			break
		}
		if attribution.Get().MatchString(line) {
			break
		}
		if i+1 < len(lines) && !quoted(line) && strings.TrimSpace(line) != "" && attribution.Get().MatchString(line+" "+lines[i+1]) && quoted(after(lines, i+2)) {
			break
		}
		if quoted(line) {
			continue
		}
		kept = append(kept, line)
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// quoted reports whether line is quoted history.
func quoted(line string) bool { return strings.HasPrefix(strings.TrimLeft(line, " \t"), ">") }

// after returns the first line from i on that is not blank, "" at the end.
func after(lines []string, i int) string {
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

// blockquote is the quoted history of an HTML mail, dropped before the
// conversion to text (Gmail and Outlook quote with it).
var blockquote = lazy.Regexp{Expr: `(?is)<blockquote\b.*?</blockquote>|<div class="gmail_quote.*$`}

// tag is an HTML tag, for the fallback.
var tag = lazy.Regexp{Expr: `<[^>]*>`}

// htmlText turns an HTML body into Markdown-ish plain text, for mail
// that has no text/plain part. A conversion failure falls back to the
// text with the tags dropped.
func htmlText(body string) string {
	body = blockquote.Get().ReplaceAllString(body, "")
	if md, err := htmltomarkdown.ConvertString(body); err == nil {
		return md
	}
	return html.UnescapeString(tag.Get().ReplaceAllString(body, " "))
}
