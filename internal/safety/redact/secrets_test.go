package redact

import (
	"strings"
	"testing"
)

// fake builds a token-like string of n characters from alphabet, so the
// test data holds no real secret.
func fake(alphabet string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
	}
	return b.String()
}

const (
	alnum = "aB3dE5fG7hJ9kLmN2pQ4rS6tU8vWxYz0"
	hexLo = "0123456789abcdef"
	upNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	// bech32 has no 1, b, i or o.
	bech32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

func TestRedactSecretsFormats(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA" + fake(alnum, 60) + "\n" + fake(alnum, 40) + "==\n-----END RSA PRIVATE KEY-----"
	cases := []struct{ name, in, want string }{
		{"openai", "key sk-" + fake(alnum, 48) + " end", "key [REDACTED:openai_key] end"},
		{"openai project", "sk-proj-" + fake(alnum, 40) + "_" + fake(alnum, 20), "[REDACTED:openai_key]"},
		{"anthropic", "sk-ant-api03-" + fake(alnum, 40), "[REDACTED:anthropic_key]"},
		{"openrouter", "sk-or-v1-" + fake(hexLo, 64), "[REDACTED:openrouter_key]"},
		{"github classic", "ghp_" + fake(alnum, 36), "[REDACTED:github_token]"},
		{"github oauth", "token gho_" + fake(alnum, 36) + ".", "token [REDACTED:github_token]."},
		{"github app", "ghs_" + fake(alnum, 36) + " ghu_" + fake(alnum, 36) + " ghr_" + fake(alnum, 36), "[REDACTED:github_token] [REDACTED:github_token] [REDACTED:github_token]"},
		{"github fine-grained", "github_pat_11ABCDEFG0" + fake(alnum, 12) + "_" + fake(alnum, 59), "[REDACTED:github_token]"},
		{"gitlab", "glpat-" + fake(alnum, 20), "[REDACTED:gitlab_token]"},
		{"slack bot", "xoxb-123456789012-1234567890123-" + fake(alnum, 24), "[REDACTED:slack_token]"},
		{"slack user", "xoxp-" + fake(hexLo, 30), "[REDACTED:slack_token]"},
		{"slack webhook", "POST https://hooks.slack.com/services/T0000/B0000/" + fake(alnum, 24) + " ok", "POST [REDACTED:slack_webhook] ok"},
		{"discord webhook", "https://discord.com/api/webhooks/123456789012345678/" + fake(alnum, 68), "[REDACTED:discord_webhook]"},
		{"discord bot", "MTA" + fake(alnum, 23) + "." + fake(alnum, 6) + "." + fake(alnum, 38), "[REDACTED:discord_token]"},
		{"aws access key", "id AKIA" + fake(upNum, 16) + " and ASIA" + fake(upNum, 16), "id [REDACTED:aws_access_key_id] and [REDACTED:aws_access_key_id]"},
		{"aws secret", "aws_secret_access_key = " + fake(alnum+"/+", 40), "aws_secret_access_key = [REDACTED:aws_secret_key]"},
		{"google api key", "AIza" + fake(alnum, 35), "[REDACTED:google_api_key]"},
		{"google oauth secret", "GOCSPX-" + fake(alnum, 28), "[REDACTED:google_oauth_secret]"},
		{"google oauth token", "ya29." + fake(alnum, 60), "[REDACTED:google_oauth_token]"},
		{"huggingface", "hf_" + fake(alnum, 34), "[REDACTED:huggingface_token]"},
		{"telegram", "bot123456789:AA" + fake(alnum, 33) + "/getMe", "bot[REDACTED:telegram_bot_token]/getMe"},
		{"telegram bare", "1234567890:AA" + fake(alnum, 33), "[REDACTED:telegram_bot_token]"},
		{"stripe live", "sk_live_" + fake(alnum, 24), "[REDACTED:stripe_key]"},
		{"stripe restricted", "rk_live_" + fake(alnum, 24), "[REDACTED:stripe_key]"},
		{"stripe webhook", "whsec_" + fake(alnum, 32), "[REDACTED:stripe_key]"},
		{"sendgrid", "SG." + fake(alnum, 22) + "." + fake(alnum, 43), "[REDACTED:sendgrid_key]"},
		{"twilio", "SK" + fake(hexLo, 32), "[REDACTED:twilio_api_key]"},
		{"mailgun", "key-" + fake(hexLo, 32), "[REDACTED:mailgun_key]"},
		{"npm", "//registry.npmjs.org/:_authToken=npm_" + fake(alnum, 36), "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]"},
		{"pypi", "pypi-AgEIcHlwaS5vcmc" + fake(alnum, 60), "[REDACTED:pypi_token]"},
		{"digitalocean", "dop_v1_" + fake(hexLo, 64), "[REDACTED:digitalocean_token]"},
		{"groq", "gsk_" + fake(alnum, 52), "[REDACTED:groq_key]"},
		{"perplexity", "pplx-" + fake(alnum, 48), "[REDACTED:perplexity_key]"},
		{"replicate", "r8_" + fake(alnum, 37), "[REDACTED:replicate_token]"},
		{"xai", "xai-" + fake(alnum, 80), "[REDACTED:xai_key]"},
		{"tavily", "tvly-" + fake(alnum, 32), "[REDACTED:tavily_key]"},
		{"vault", "hvs." + fake(alnum, 90), "[REDACTED:vault_token]"},
		{"jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fake(alnum, 43), "[REDACTED:jwt]"},
		{"pem", "key:\n" + pem + "\ndone", "key:\n[REDACTED:private_key]\ndone"},
		{"pem json-escaped", `{"out":"` + strings.ReplaceAll(pem, "\n", `\n`) + `\n"}`, `{"out":"[REDACTED:private_key]\n"}`},
		{"pem truncated", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" + fake(alnum, 50) + "\n[output truncated]", "[REDACTED:private_key][output truncated]"},
		{"bearer header", "Authorization: Bearer " + fake(alnum, 40), "Authorization: Bearer [REDACTED:authorization]"},
		{"basic header", `-H "Authorization: Basic dXNlcjpodW50ZXIy"`, `-H "Authorization: Basic [REDACTED:authorization]"`},
		{"bearer jwt", "authorization: bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "authorization: bearer [REDACTED:jwt]"},
		{"bare bearer", "use Bearer " + fake(alnum, 30), "use Bearer [REDACTED:bearer_token]"},
		{"x-api-key header", "x-api-key: " + fake(alnum, 32), "x-api-key: [REDACTED:api_key]"},
		{"env api key", "OPENAI_API_KEY=abc123def456ghi", "OPENAI_API_KEY=[REDACTED:key]"},
		{"env token export", `export GH_TOKEN="tok_1234567890"`, `export GH_TOKEN="[REDACTED:token]"`},
		{"env secret", "DJANGO_SECRET=hunter2hunter2", "DJANGO_SECRET=[REDACTED:secret]"},
		{"env password", "DB_PASSWORD=correct-horse", "DB_PASSWORD=[REDACTED:password]"},
		{"upper _key", "STRIPE_KEY=abcdef123456", "STRIPE_KEY=[REDACTED:key]"},
		{"yaml", "  password: s3cr3t!pw", "  password: [REDACTED:password]"},
		{"json", `{"api_key": "abcd1234efgh", "user": "bob"}`, `{"api_key": "[REDACTED:key]", "user": "bob"}`},
		{"json escaped", `{"output":"{\"client_secret\": \"abcd1234efgh\"}"}`, `{"output":"{\"client_secret\": \"[REDACTED:secret]\"}"}`},
		{"toml", `token = "abc.def.123"`, `token = "[REDACTED:token]"`},
		{"url userinfo", "https://alice:hunter2@example.com/x", "https://alice:[REDACTED:password]@example.com/x"},
		{"postgres", "postgres://app:p4ss@db.internal:5432/prod", "postgres://app:[REDACTED:password]@db.internal:5432/prod"},
		{"mysql", "mysql://root:toor@127.0.0.1/db", "mysql://root:[REDACTED:password]@127.0.0.1/db"},
		{"mongodb srv", "mongodb+srv://u:Pa55word@cluster0.mongodb.net/?retryWrites=true", "mongodb+srv://u:[REDACTED:password]@cluster0.mongodb.net/?retryWrites=true"},
		{"redis no user", "redis://:foobared@localhost:6379/0", "redis://:[REDACTED:password]@localhost:6379/0"},
		{"query token", "https://api.example.com/v1?token=abc123&page=2", "https://api.example.com/v1?token=[REDACTED:query_secret]&page=2"},
		{"query api_key", "GET /x?q=cats&api_key=zzz999", "GET /x?q=cats&api_key=[REDACTED:query_secret]"},
		{"query access_token", "?access_token=ya1234", "?access_token=[REDACTED:query_secret]"},
		{"query sig", "blob?sv=2021&sig=AbC%2Fdef%3D", "blob?sv=2021&sig=[REDACTED:query_secret]"},
		{"query key", "maps?key=AbCd1234&z=3", "maps?key=[REDACTED:query_secret]&z=3"},
		{"curl -u", "curl -u admin:secretpw https://x", "curl -u admin:[REDACTED:password] https://x"},
		{"azure", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=" + fake(alnum, 86) + "==;EndpointSuffix=core", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=[REDACTED:azure_key];EndpointSuffix=core"},
		{"json escaped line start", `{"output":"line\nsk-proj-` + fake(alnum, 40) + `\nghp_` + fake(alnum, 36) + `\n"}`, `{"output":"line\n[REDACTED:openai_key]\n[REDACTED:github_token]\n"}`},
		{"json escaped header", `"\nAuthorization: Bearer ` + fake(alnum, 30) + `\n"`, `"\nAuthorization: Bearer [REDACTED:authorization]\n"`},
		{"json escaped telegram", `"\n123456789:AA` + fake(alnum, 33) + `"`, `"\n[REDACTED:telegram_bot_token]"`},
		{"json escaped curl -u", `{"cmd":"curl -u \"admin:pw1234\" x"}`, `{"cmd":"curl -u \"admin:[REDACTED:password]\" x"}`},
		{"age", "AGE-SECRET-KEY-1" + fake(bech32, 58), "[REDACTED:age_secret_key]"},
	}
	for _, c := range cases {
		if got := Secrets(c.in); got != c.want {
			t.Errorf("%s:\n in   %q\n got  %q\n want %q", c.name, c.in, got, c.want)
		}
		if again := Secrets(c.want); again != c.want {
			t.Errorf("%s: redacting the redacted text changed it: %q", c.name, again)
		}
	}
}

func TestRedactSecretsLeavesLookalikes(t *testing.T) {
	for _, in := range []string{
		"the task-list and the desk-lamp are in the risk-assessment-document-for-2024",
		"sk-learn is a nickname; sk-this-is-prose-without-digits-at-all",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
		"id 123e4567-e89b-12d3-a456-426614174000",
		"eyJ alone, or eyJhbGciOiJIUzI1NiJ9 without a payload",
		"password= \nPASSWORD=\n\"password\": \"\"",
		`"usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160}`,
		"max_tokens=4096 token_count: 12",
		"api_key = os.environ['OPENAI_API_KEY'] ; token = settings.github_token ; password = get_password()",
		"OPENAI_API_KEY=$OPENAI_API_KEY and TOKEN=${TOKEN} and SECRET=<your-secret>",
		"sort_key=name primary_key: id",
		"token := r.Header.Get(\"X\")\napiKey = process.env.API_KEY\ntoken_limit=4096 tokenizer=cl100k_base",
		"func check(token: str, password: Optional) -> None",
		"KEYBOARD=us XDG_SESSION_TYPE=wayland",
		"see https://example.com/docs?page=2&lang=en and mailto:bob@example.com",
		"git@github.com:org/repo.git and ssh://git@host/repo",
		"a Bearer token is sent in the Authorization header",
		"12:30:45 AA meeting; port 8080:80",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
		"token: null, secret: true, password: ***",
		"",
	} {
		if got := Secrets(in); got != in {
			t.Errorf("Secrets changed text with no secret:\n in  %q\n got %q", in, got)
		}
	}
}

func TestRedactSecretsDataURL(t *testing.T) {
	img := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	in := `<img src="` + img + `">` + strings.Repeat("/"+fake(alnum+"+/", 64), 50)
	if got := Secrets(in); got != in {
		t.Errorf("a data URL was mangled:\n in  %.200q\n got %.200q", in, got)
	}
}

// mixedText is 100 KB of shell output, JSON, code and prose with a few
// secrets, roughly what a busy session's tool results look like.
func mixedText() string {
	chunks := []string{
		"total 48\ndrwxr-xr-x  5 user staff  160 Jan  2 10:00 src\n-rw-r--r--  1 user staff 1024 Jan  2 10:00 go.mod\n",
		`{"id": "chatcmpl-123", "usage": {"prompt_tokens": 120, "completion_tokens": 40}, "choices": [{"message": {"content": "Sure, here is the plan."}}]}` + "\n",
		"func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tkey := r.URL.Query().Get(\"id\")\n\treturn\n}\n",
		"The quick brown fox jumps over the lazy dog while the task-list grows; see https://example.com/docs?page=2.\n",
		"2024-01-02T10:00:00Z INFO request completed status=200 duration=12ms path=/api/v1/items\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < 100*1024; i++ {
		b.WriteString(chunks[i%len(chunks)])
		if i%97 == 0 {
			b.WriteString("export GITHUB_TOKEN=ghp_" + fake(alnum, 36) + "\n")
		}
	}
	return b.String()
}

func BenchmarkRedactSecrets(b *testing.B) {
	text := mixedText()
	b.SetBytes(int64(len(text)))
	// The rules are compiled on first use; that happens once per process
	// and is not what a redaction costs.
	Secrets("warm up the rules")
	for b.Loop() {
		Secrets(text)
	}
}
