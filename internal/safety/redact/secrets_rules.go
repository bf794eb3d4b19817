package redact

import (
	"regexp"
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// secretRules is compiled on first use, so programs that never redact
// pay nothing at start-up.
var secretRules = lazy.Value[[]secretRule]{New: func() []secretRule {
	rules := []secretRule{
		// Key blocks first: their base64 body could otherwise match
		// shorter formats piecemeal. A block cut off before its END line
		// (truncated output) is redacted to the end of its base64 body.
		secretFormat("private_key", `-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\[nrt])*)`, "-----begin"),
		secretFormat("age_secret_key", `\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`, "age-secret-key-"),

		// Provider keys with a distinctive prefix. Prefixes that extend
		// "sk-" come before OpenAI's.
		secretFormat("anthropic_key", `\bsk-ant-[A-Za-z0-9_\-]{20,}`, "sk-ant-"),
		secretFormat("openrouter_key", `\bsk-or-[A-Za-z0-9_\-]{20,}`, "sk-or-"),
		prefixed(secretRule{kind: "openai_key", anchors: []string{"sk-"},
			accept: func(sub []string) bool { return hasDigit(sub[0]) && hasLetter(sub[0][3:]) }},
			`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}`),
		secretFormat("github_token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
		secretFormat("gitlab_token", `\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_\-]{20,}`, "gl"),
		secretFormat("slack_token", `\bxox[abposr]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Za-z0-9\-]{10,}`, "xox", "xapp-"),
		secretFormat("slack_webhook", `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+`, "https://hooks.slack.com/"),
		{kind: "discord_webhook", re: regexp.MustCompile(`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+`), anchors: []string{"/api/webhooks/"}, back: 40},
		// A Discord bot token starts with its bot's user id in base64: a
		// decimal digit string encodes to one of these pairs.
		prefixed(secretRule{kind: "discord_token", anchors: []string{"MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"}, exact: true},
			`\b[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}\b`),
		secretFormat("aws_access_key_id", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, "akia", "asia", "abia", "acca"),
		secretFormat("google_api_key", `\bAIza[0-9A-Za-z_\-]{35}`, "aiza"),
		secretFormat("google_oauth_secret", `\bGOCSPX-[A-Za-z0-9_\-]{28}`, "gocspx-"),
		secretFormat("google_oauth_token", `\bya29\.[0-9A-Za-z_\-]{20,}`, "ya29."),
		secretFormat("huggingface_token", `\bhf_[A-Za-z0-9]{30,}`, "hf_"),
		// Telegram tokens also appear glued to "bot" in API URLs, so no
		// word boundary is asked for.
		{kind: "telegram_bot_token", re: regexp.MustCompile(`(\d{6,12}:AA[0-9A-Za-z_\-]{30,40})\b`), anchors: []string{":aa"}, group: 1},
		secretFormat("stripe_key", `\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{20,}|\bwhsec_[A-Za-z0-9+/=]{20,}`, "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_", "whsec_"),
		secretFormat("sendgrid_key", `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`, "sg."),
		prefixed(secretRule{kind: "twilio_api_key", anchors: []string{"SK"}, exact: true}, `\bSK[0-9a-fA-F]{32}\b`),
		secretFormat("mailgun_key", `\bkey-[0-9a-f]{32}\b`, "key-"),
		secretFormat("npm_token", `\bnpm_[A-Za-z0-9]{36}\b`, "npm_"),
		secretFormat("pypi_token", `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}`, "pypi-"),
		secretFormat("digitalocean_token", `\bdo[opr]_v1_[a-f0-9]{64}\b`, "dop_v1_", "doo_v1_", "dor_v1_"),
		secretFormat("groq_key", `\bgsk_[A-Za-z0-9]{40,}`, "gsk_"),
		secretFormat("perplexity_key", `\bpplx-[A-Za-z0-9]{40,}`, "pplx-"),
		secretFormat("replicate_token", `\br8_[A-Za-z0-9]{30,}`, "r8_"),
		secretFormat("xai_key", `\bxai-[A-Za-z0-9]{60,}`, "xai-"),
		secretFormat("tavily_key", `\btvly-(?:dev-|prod-)?[A-Za-z0-9]{20,}`, "tvly-"),
		secretFormat("linear_key", `\blin_api_[A-Za-z0-9]{40}\b`, "lin_api_"),
		secretFormat("notion_token", `\bntn_[A-Za-z0-9]{40,}|\bsecret_[A-Za-z0-9]{43}\b`, "ntn_", "secret_"),
		secretFormat("shopify_token", `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, "shp"),
		secretFormat("vault_token", `\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`, "hvs.", "hvb.", "hvr."),
		secretFormat("postman_key", `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`, "pmak-"),
		secretFormat("jwt", `\beyJ[A-Za-z0-9_\-]{4,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*`, "eyj"),

		// Secrets known by where they stand rather than by their shape.
		prefixed(secretRule{kind: "password", anchors: []string{"://"}, group: 1}, `://[^\s:@/"'\\<>]*:([^\s@/"'\\<>]+)@`),
		{kind: "query_secret", re: regexp.MustCompile(`(?i)[?&;](?:access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|sig|signature|secret|client_secret|password|passwd|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential)=([^&#\s"'\\<>]+)`),
			anchors: []string{"token=", "key=", "sig=", "signature=", "secret=", "password=", "passwd=", "credential="}, group: 1},
		{kind: "authorization", re: regexp.MustCompile(`(?i)(?:proxy-)?authorization\\?["']?[ \t]*[:=][ \t]*\\?["']?(?:bearer|basic|token|bot|digest|apikey|key)[ \t]+([A-Za-z0-9._~+/\-]+=*)`), anchors: []string{"authorization"}, group: 1},
		{kind: "bearer_token", re: regexp.MustCompile(`(?i)bearer[ \t]+([A-Za-z0-9._~+/\-]{16,}=*)`), anchors: []string{"bearer"}, group: 1,
			accept: func(sub []string) bool { return hasDigit(sub[1]) }},
		{kind: "api_key", re: regexp.MustCompile(`(?i)(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)\\?["']?[ \t]*:[ \t]*\\?["']?([^\s"'\\,;]{8,})`), anchors: []string{"api-key", "-token"}, group: 1},
		{kind: "password", re: regexp.MustCompile(`(?:^|\s)(?:-u|--user)[ \t]+\\?['"]?[^\s:'"\\]+:([^\s'"\\]+)`), anchors: []string{"-u ", "-u\t", "--user"}, exact: true, group: 1},
		{kind: "aws_secret_key", re: regexp.MustCompile(`(?i)aws_?secret_?access_?key\\?["']?[ \t]*[:=][ \t]*\\?["']?([A-Za-z0-9/+=]{40})`), anchors: []string{"secret"}, group: 1},
		{kind: "azure_key", re: regexp.MustCompile(`(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}=*)`), anchors: []string{"accesskey=", "accountkey="}, group: 1},

		// NAME=value, NAME: value, "name": "value" and name = "value"
		// where the name says secret. Last, so the specific formats name
		// their kind first.
		prefixed(secretRule{anchors: []string{"api_key", "api-key", "apikey", "token", "secret", "password", "passwd", "passphrase", "credential",
			"private_key", "private-key", "privatekey", "access_key", "access-key", "accesskey", "_key"},
			group: 2, name: true, accept: acceptAssignment, kindOf: assignmentKind},
			`(?i)((?:api[_\-]?key|token|secret|password|passwd|passphrase|credentials?|private[_\-]?key|access[_\-]?key|_key)[A-Za-z0-9_]*)\\?["']?[ \t]*[:=][ \t]*\\?["']?([^\s"'\\<>\[\]{}(),;&]+)`),
	}
	return rules
}}

// acceptAssignment vets NAME=value matches. Token counts and limits
// (max_tokens, "prompt_tokens": 12, token_limit), file paths, and
// lower-case *_key names (sort_key, primary_key) are not secrets; neither
// are placeholders, references to other variables, and source code
// (token := r.Header.Get(...), apiKey = process.env.API_KEY).
func acceptAssignment(sub []string) bool {
	name, value := strings.ToLower(sub[1]), sub[2]
	for _, w := range []string{"tokens", "tokeniz", "_count", "_limit", "_budget", "_len", "_size", "max_", "_max", "_type", "_path", "_file", "_dir", "_env", "_name", "_id", "_url", "_expires", "_ttl"} {
		if strings.Contains(name, w) {
			return false
		}
	}
	if strings.HasSuffix(name, "_key") && !strings.ContainsAny(sub[1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") &&
		!strings.Contains(name, "api") && !strings.Contains(name, "secret") && !strings.Contains(name, "private") && !strings.Contains(name, "access") {
		return false
	}
	switch strings.ToLower(value) {
	case "null", "none", "nil", "true", "false", "undefined", "redacted", "bearer", "string", "str", "required", "optional", "env", "secret", "password", "token":
		return false
	}
	if strings.EqualFold(value, sub[1]) || strings.Contains(value, "(") || codeReference(value) {
		return false
	}
	return !strings.ContainsRune("$<=:*%", rune(value[0]))
}

// codeReference reports whether value reads like an expression in source
// code rather than a literal: identifiers joined by dots
// (settings.api_key, process.env.API_KEY, self.token), or a lower-case
// snake_case name (api_key_value).
func codeReference(value string) bool {
	if strings.Contains(value, ".") {
		for _, seg := range strings.Split(value, ".") {
			if seg == "" || !(seg[0] == '_' || seg[0] >= 'a' && seg[0] <= 'z' || seg[0] >= 'A' && seg[0] <= 'Z') {
				return false
			}
			for i := 0; i < len(seg); i++ {
				if !isWordByte(seg[i]) {
					return false
				}
			}
		}
		return true
	}
	if !strings.Contains(value, "_") {
		return false
	}
	for _, c := range value {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// assignmentKind names a NAME=value secret after what its name says.
func assignmentKind(sub []string) string {
	n := strings.ToLower(sub[1])
	switch {
	case strings.Contains(n, "pass"):
		return "password"
	case strings.Contains(n, "token"):
		return "token"
	case strings.Contains(n, "key"):
		return "key"
	}
	return "secret"
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}
