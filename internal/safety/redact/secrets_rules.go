package redact

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
)

// secretRules is compiled on first use, so programs that never redact
// pay nothing at start-up. Token formats come first, then secrets known
// by where they stand (secrets_context.go), then values of variables
// named as secrets (secrets_assign.go), so the specific formats name
// their kind first.
var secretRules = lazy.Value[*ruleSet]{New: func() *ruleSet {
	rules := tokenRules()
	rules = append(rules, contextRules()...)
	return newRuleSet(append(rules, assignmentRule()))
}}

// tokenRules are the secrets recognized by their own shape, mostly a
// provider's prefix.
func tokenRules() []secretRule {
	return []secretRule{
		// Key blocks first: their base64 body could otherwise match
		// shorter formats piecemeal. A block cut off before its END line
		// (truncated output) is redacted to the end of its base64 body.
		compiled(secretRule{kind: "private_key", anchors: []string{"-----begin"}},
			`-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,\- \t\r\n]|\\[nrt])*)`),
		// age keys are bech32: 58 data characters, never 1, b, i or o.
		// Recipients are public, but shaped like the secret keys and
		// redacted as well.
		secretFormat("age_secret_key", `(?i)\bAGE-SECRET-KEY-1[02-9ac-hj-np-z]{58}\b`, "age-secret-key-1"),
		secretFormat("age_key", `(?i)\bage1[02-9ac-hj-np-z]{58}\b`, "age1"),

		// Provider keys with a distinctive prefix. Prefixes that extend
		// "sk-" come before OpenAI's.
		secretFormat("anthropic_key", `\bsk-ant-[A-Za-z0-9_\-]{20,}`, "sk-ant-"),
		secretFormat("openrouter_key", `\bsk-or-[A-Za-z0-9_\-]{20,}`, "sk-or-"),
		vetted(secretFormat("openai_key", `\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{10,}`, "sk-"), openAIKey),
		vetted(secretFormat("elevenlabs_key", `\bsk_[A-Za-z0-9]{16,}\b`, "sk_"), tokenish),
		secretFormat("github_token", `\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}\b|\bgithub_pat_[A-Za-z0-9_]{22,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
		secretFormat("gitlab_token", `\bgl(?:pat|dt|ptt|cbt|oas|soat|ft|imt|agent|ffct|wt)-[A-Za-z0-9_\-]{10,}|\bglrtr?-[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-]+)*|\bGR1348941[A-Za-z0-9_\-]{10,}`, "gl", "gr1348941"),
		secretFormat("slack_token", `\bxox[abposr]-[A-Za-z0-9\-]{10,}|\bxapp-\d-[A-Za-z0-9\-]{10,}`, "xox", "xapp-"),
		compiled(secretRule{kind: "slack_webhook", anchors: []string{"https://hooks.slack.com/"}},
			`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+`),
		compiled(secretRule{kind: "discord_webhook", anchors: []string{"discord"}, start: startAfter("https://ptb.", "https://canary.", "https://")},
			`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+`),
		// A Discord bot token starts with its bot's user id in base64: a
		// decimal digit string encodes to one of these pairs.
		compiled(secretRule{kind: "discord_token", anchors: []string{"MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"}, exact: true, join: true},
			`\b[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}\b`),
		secretFormat("aws_access_key_id", `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`, "akia", "asia", "abia", "acca"),
		secretFormat("google_api_key", `\bAIza[0-9A-Za-z_\-]{35}`, "aiza"),
		secretFormat("google_oauth_secret", `\bGOCSPX-[A-Za-z0-9_\-]{28}`, "gocspx-"),
		secretFormat("google_oauth_token", `\bya29\.[0-9A-Za-z_\-]{20,}`, "ya29."),
		secretFormat("huggingface_token", `\bhf_[A-Za-z0-9]{30,}`, "hf_"),
		secretFormat("stripe_key", `\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{20,}|\bwhsec_[A-Za-z0-9+/=]{20,}`, "sk_live_", "sk_test_", "rk_live_", "rk_test_", "pk_live_", "pk_test_", "whsec_"),
		secretFormat("sendgrid_key", `\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b`, "sg."),
		compiled(secretRule{kind: "twilio_api_key", anchors: []string{"SK"}, exact: true, join: true}, `\bSK[0-9a-fA-F]{32}\b`),
		secretFormat("mailgun_key", `\bkey-[0-9a-f]{32}\b`, "key-"),
		secretFormat("npm_token", `\bnpm_[A-Za-z0-9]{36}\b`, "npm_"),
		secretFormat("pypi_token", `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}`, "pypi-"),
		secretFormat("digitalocean_token", `\bdo[opr]_v1_[a-f0-9]{64}\b`, "dop_v1_", "doo_v1_", "dor_v1_"),
		secretFormat("groq_key", `\bgsk_[A-Za-z0-9]{20,}`, "gsk_"),
		secretFormat("perplexity_key", `\bpplx-[A-Za-z0-9]{10,}\b`, "pplx-"),
		secretFormat("replicate_token", `\br8_[A-Za-z0-9]{30,}`, "r8_"),
		secretFormat("xai_key", `\bxai-[A-Za-z0-9]{30,}`, "xai-"),
		secretFormat("tavily_key", `\btvly-(?:dev-|prod-)?[A-Za-z0-9]{10,}\b`, "tvly-"),
		vetted(secretFormat("exa_key", `\bexa_[A-Za-z0-9]{10,}\b`, "exa_"), tokenish),
		secretFormat("fireworks_key", `\b(?:fw[-_]|fpk_)[A-Za-z0-9]{30,}\b`, "fw-", "fw_", "fpk_"),
		vetted(secretFormat("firecrawl_key", `\bfc-[A-Za-z0-9]{16,}\b`, "fc-"), tokenish),
		vetted(secretFormat("fal_key", `\bfal_[A-Za-z0-9_\-]{16,}\b`, "fal_"), tokenish),
		// AgentMail: the body has no "_" or "-", which tells it from
		// identifiers such as am_example_identifier.
		vetted(secretFormat("agentmail_key", `\bam_(?:org_)?[A-Za-z0-9]{20,}\b`, "am_"), tokenish),
		secretFormat("linear_key", `\blin_api_[A-Za-z0-9]{40}\b`, "lin_api_"),
		secretFormat("notion_token", `\bntn_[A-Za-z0-9]{10,}\b|\bsecret_[A-Za-z0-9]{43}\b`, "ntn_", "secret_"),
		secretFormat("shopify_token", `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, "shp"),
		secretFormat("vault_token", `\bhv[sbr]\.[A-Za-z0-9_\-]{24,}`, "hvs.", "hvb.", "hvr."),
		secretFormat("postman_key", `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`, "pmak-"),
		secretFormat("matrix_token", `\bsyt_[A-Za-z0-9_\-]{20,}`, "syt_"),
		// Fernet tokens (Codex's encrypted credentials among them).
		compiled(secretRule{kind: "fernet_token", anchors: []string{"gAAAAA"}, exact: true, join: true}, `\bgAAAAA[A-Za-z0-9_=\-]{40,}`),
		// JWTs: a base64url JSON header, then usually a payload and a
		// signature, which may be short or missing, and may carry base64
		// padding. A header alone counts when it is long enough to say
		// more than its algorithm.
		vetted(compiled(secretRule{kind: "jwt", anchors: []string{"eyJ"}, exact: true, join: true},
			`\beyJ[A-Za-z0-9_\-]{10,}={0,2}(?:\.[A-Za-z0-9_\-]+={0,2}(\.[A-Za-z0-9_\-]*={0,2})?)?`), jwtParts),
	}
}

// vetted sets a rule's vet function.
func vetted(r secretRule, vet func(x match) (string, bool)) secretRule {
	r.vet = vet
	return r
}

// openAIKey vets sk- keys against prose and identifiers such as
// sk-learn: the body must have a letter and a digit or a long unbroken
// run, and a short body must be one run.
func openAIKey(x match) (string, bool) {
	body := x.sub(0)[3:]
	if !hasLetter(body) {
		return "", false
	}
	if len(body) < 20 {
		return "", hasDigit(body) && !strings.ContainsAny(body, "-_")
	}
	return "", hasDigit(body) || longestRun(body) >= 20
}

// tokenish vets a format whose prefix is also common in identifiers
// (exa_, am_, sk_): the body must mix letters and digits.
func tokenish(x match) (string, bool) {
	s := x.sub(0)
	body := s[strings.IndexAny(s, "_-")+1:]
	return "", hasDigit(body) && hasLetter(body)
}

// jwtParts vets a JWT: a header alone must be at least 32 characters.
func jwtParts(x match) (string, bool) {
	s := x.sub(0)
	return "", strings.Contains(s, ".") || len(s) >= 32
}

// longestRun returns the length of the longest run of letters and
// digits in s.
func longestRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if isWordByte(s[i]) && s[i] != '_' {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
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

func hasUpper(s string) bool {
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}

func hasLower(s string) bool {
	for _, c := range s {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}
