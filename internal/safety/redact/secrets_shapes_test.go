package redact

import (
	"strings"
	"testing"
)

// TestRedactSecretsShapes covers the kinds of secrets and lookalikes in
// Hermes Agent's redaction tests beyond the shared vectors, so that what
// agrees there is the kind and not only the example.
func TestRedactSecretsShapes(t *testing.T) {
	red := []struct{ in, gone string }{
		{"leaked glrtr-" + strings.Repeat("B", 27) + ".01." + strings.Repeat("b", 9) + " in output", strings.Repeat("B", 27)},
		{"leaked glrtr-" + strings.Repeat("B", 27) + ".01." + strings.Repeat("b", 9) + " in output", strings.Repeat("b", 9)},
		{"leaked glimt-AbCdEfGhIjKlMnOpQrStUvWxY in output", "AbCdEfGhIjKlMnOpQrStUvWxY"},
		{"leaked glffct-AbCdEfGhIjKlMnOpQrSt in output", "AbCdEfGhIjKlMnOpQrSt"},
		{"leaked glpat-Zx9AbCdEfGhIjKlMnOpQ in output", "Zx9AbCdEfGhIjKlMnOpQ"},
		{"leaked am_" + strings.Repeat("Ab9", 8) + " in output", "Ab9Ab9Ab9Ab9"},
		{"generated AGE-SECRET-KEY-1" + strings.Repeat("70", 29) + " ok", "707070707070"},
		{"generated age1" + strings.Repeat("70", 29) + " ok", "707070707070"},
		{"xoxb-" + strings.Repeat("0", 12) + "-" + strings.Repeat("a", 14), strings.Repeat("a", 14)},
		{"PASSWORD=hunter2", "hunter2"},
		{"SECRET_TOKEN=bailu", "bailu"},
		{"DB_PW=jkl012", "jkl012"},
		{"ghp_abcdef\n1234567890ABCDEF1234567890abcdef", "1234567890ABCDEF1234567890abcdef"},
		{"ghp_abcdef\x1b1234567890ABCDEF1234567890abcdef", "1234567890ABCDEF1234567890abcdef"},
		{"ghp_abcdef\x1b[0m1234567890ABCDEF1234567890abcdef", "1234567890ABCDEF1234567890abcdef"},
		{"12345678901:ABCDEfghijKLMNopqrstUVWXyz1234567890", "ABCDEfghij"},
		{"using key xai-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstu", "ABCDEFGHIJKLMNOP"},
		{"ssh://longtoken1234567@gitlab.com/project.git", "longtoken1234567"},
		{"api-key: anotherOpaqueSecret1234567", "anotherOpaqueSecret"},
		{"auth_token: xyz789xyz789xyz789xyz", "xyz789xyz789"},
		{"db_password: hunter2", "hunter2"},
		{"auth_token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c"},
		{"token: ghp_S1abcdefghijklmnopqrstuvwxyz0Pn2T", "S1abcdefghij"},
		{"GITHUB_PERSONAL_ACCESS_TOKEN: ghp_S1abcdefghijklmnopqrstuvwxyz0Pn2T", "S1abcdefghij"},
		{"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"},
		{"sk-live-0123456789abcdef", "0123456789abcdef"},
		{"CUSTOM_API_KEY=opaquecustomkey123456", "opaquecustomkey123456"},
		{"FIRECRAWL_API_KEY=fc-shortkey123456789012", "shortkey123456789012"},
		{"fc-shortkey123456789012", "shortkey123456789012"},
		{"TELEGRAM_BOT_TOKEN=bot987654321:ABCDEfghij-KLMNopqrst_UVWXyz12345", "ABCDEfghij"},
		{"curl -H 'Authorization: Bearer opaque0123456789abcdef' https://x.example", "opaque0123456789abcdef"},
		{"MY_SECRET=hunter2 and", "hunter2"},
		{"wss://provider.example/session?token=aaa-secret&apikey=bbb-secret", "bbb-secret"},
		{"CUSTOM_TOKEN=zzzopaque1234567890abcdef", "zzzopaque"},
		{`{'BRAVE_API_KEY': 'opaque-value'}`, "opaque-value"},
		{"my_secret: topvalue123456789012345", "topvalue"},
		{"GH_AUTH_TOKEN=gho_" + strings.Repeat("x1", 18), "x1x1x1x1"},
		{"pk_live_" + strings.Repeat("a1", 12), "a1a1a1a1"},
		{"export TOKEN='aB3dE5fG7hJ9kLmN'", "aB3dE5fG7hJ9kLmN"},
		{"password = \"hunter\"", "hunter"},
		{"ghp_abcdef\u200b1234567890ABCDEF1234567890abcdef", "abcdef"},
		{"text: Token: ghp_" + strings.Repeat("F", 29) + "\nbutton", strings.Repeat("F", 20)},
		{"sk-aaaaaaaaaaaaaaa\u200bbbbbbbbbbbbbbbbbbbbbbbbbb", "bbbbbbbbbb"},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0\u200b.abc123def456ghij", "abc123def456"},
	}
	for _, c := range red {
		if got := Secrets(c.in); strings.Contains(got, c.gone) {
			t.Errorf("kept %q in %q", c.gone, got)
		}
	}
	// A whole token at the end of a line does not take the next line.
	if got := Secrets("text: Token: ghp_" + strings.Repeat("F", 29) + "\nbutton [ref=e3]: Copy\n"); got != "text: Token: [REDACTED:github_token]\nbutton [ref=e3]: Copy\n" {
		t.Errorf("joined a token with the next line: %q", got)
	}
	for _, in := range []string{
		"AGE-SECRET-KEY-1" + strings.Repeat("b", 10) + strings.Repeat("i", 10) + strings.Repeat("o", 10) + strings.Repeat("K", 28),
		"age1" + strings.Repeat("b", 10) + strings.Repeat("i", 10) + strings.Repeat("o", 10) + strings.Repeat("K", 28),
		"path/to/am_monthly_report.sql",
		"PASSAGE=notsecret",
		"MY_API_KEY=os.getenv('OPENAI_API_KEY')",
		"Set it up like this:\n    HA_TOKEN=os.getenv('HOMEASSISTANT_TOKEN')\n    if not HA_TOKEN:\n        raise ValueError('Missing credentials')",
		`{"name": "John", "model": "gpt-4"}`,
		"Hello <@222589316709220353>",
		"GET https://api.example.com/oauth/cb?code=abc123xyz789&state=csrf_ok",
		"/metrics?token_count=17&session_id=public",
		"https://git@github.com/user/repo.git", "https://admin@example.com/x", "https://deploy@host.com/y",
		"https://example.com/search?q=user@example.com", "https://example.com/users/john@doe.com/profile",
		"Secretary: JanetYellen1234567890",
		"IDENTITY_TOKEN=\"bailu\"\n--override-tensor per_layer_token_embd.weight=CPU\nMAX_TOKENS=4096\nruntime.token=local\nThe tokenizer splits on whitespace; set max_new_tokens=256.\nnum_key_value_heads=8\ntoken: CPU\nllm_load_tensors: per_layer_token_embd.weight=CPU buffer",
		"I'm the bearer of bad news: the deploy failed",
		"text xai-tooshort here", "xai is a company",
		"fw-tooshort fw_tooshort fpk_tooshort",
		"the glossary explains gitlab tokens", "glpat-short", "myglpat-AbCdEfGhIjKlMnOpQrSt",
		"struct sk_buff *skb = sk_buff_alloc(sk_write_queue_head);",
		"a.b.c.token not_an_assignment",
		"Secretary: J.Smith\nauthor=Smith\ntokenizer: cl100k_base",
		"SSH_AUTH_SOCK=$HOME/.ssh/agent.sock DOCKER_AUTH_CONFIG=/home/u/.docker",
		"cache_key=user profile_key: name public_key = ssh",
		"const token = getToken();\nlet apiKey = config.apiKey;\nif (password === undefined) {}",
		"for key, value in items.items(): print(key)",
		"git log --format=%H key: value",
		"interface Creds {\n  apiKey: string;\n  secret: boolean\n  password: number\n}",
	} {
		if got := Secrets(in); got != in {
			t.Errorf("Secrets changed text with no secret:\n in  %q\n got %q", in, got)
		}
	}
}
