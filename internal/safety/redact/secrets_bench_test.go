package redact

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// typicalChunks are what terminal and code output looks like: go test
// output, ls -la, git log, JSON logs, source code and compiler errors,
// with names such as token, key and password that are not secrets.
func typicalChunks() []string {
	return []string{
		"=== RUN   TestClientRefreshesToken\n    client_test.go:88: token expired after 3 retries; want 2\n--- FAIL: TestClientRefreshesToken (0.02s)\n=== RUN   TestParseKey\n--- PASS: TestParseKey (0.00s)\nFAIL\nFAIL\tgithub.com/acme/api/client\t0.153s\nok  \tgithub.com/acme/api/store\t(cached)\n",
		"total 48\ndrwxr-xr-x  5 user staff   160 Jan  2 10:00 src\n-rw-r--r--  1 user staff  1024 Jan  2 10:00 go.mod\n-rw-------  1 user staff   312 Jan  2 10:00 .env.example\nlrwxr-xr-x  1 user staff    11 Jan  2 10:00 keys -> ../secrets/\n",
		"commit 3f786850e387550fdab836ed7e6dc881de23001b\nAuthor: Jane Doe <jane.doe@example.com>\nDate:   Tue Jan 2 10:00:00 2024 +0100\n\n    auth: rotate the signing key without dropping sessions (#4121)\n\n    Reviewed-by: Sam Roe <sam@example.com>\n",
		`{"level":"info","ts":"2024-01-02T10:00:00.123Z","msg":"request completed","status":200,"duration_ms":12,"path":"/api/v1/items?page=2&sort=name","user_id":"u_12345","usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}}` + "\n",
		`{"level":"warn","ts":"2024-01-02T10:00:01.456Z","msg":"retrying","attempt":2,"error":"context deadline exceeded","key":"cache:user:12345","token_count":4096,"max_tokens":8192}` + "\n",
		"func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {\n\ttoken, err := c.auth.Token(ctx)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"token: %w\", err)\n\t}\n\treq.Header.Set(\"Authorization\", \"Bearer \"+token)\n\tkey := cacheKey(req.URL.Path, req.Method)\n\treturn c.send(ctx, req, key)\n}\n",
		"def get_api_key(self) -> str:\n    api_key = os.environ.get(\"OPENAI_API_KEY\")\n    if not api_key:\n        raise ValueError(\"missing api key\")\n    return api_key\n\nclass Config:\n    password_min_length = 12\n    sort_key = \"created_at\"\n",
		"src/handlers/auth.ts:42:11 - error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\n\n42   const token = req.headers.authorization?.split(' ')[1];\n             ~~~~~\n\nFound 1 error in src/handlers/auth.ts:42\n",
		"npm WARN deprecated uuid@3.4.0: Please upgrade to version 7 or higher.\nadded 312 packages, and audited 313 packages in 4s\n\n42 packages are looking for funding\n  run `npm fund` for details\nfound 0 vulnerabilities\n",
		"  PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n 1234 www-data  20   0  812344  65432  12345 S   3.0   1.6   0:12.34 nginx: worker process\n 2345 postgres  20   0  234567  34567   9876 S   0.7   0.9   1:02.03 postgres: checkpointer\n",
		"diff --git a/config/settings.yaml b/config/settings.yaml\n@@ -10,7 +10,7 @@ server:\n   port: 8080\n-  timeout: 30s\n+  timeout: 60s\n   token_ttl: 3600\n   max_tokens: 4096\n",
	}
}

// secretLines are a few secrets among the typical output.
func secretLines() []string {
	return []string{
		"export GITHUB_TOKEN=ghp_" + fake(alnum, 36) + "\n",
		"OPENAI_API_KEY=sk-proj-" + fake(alnum, 48) + "\n",
		"DATABASE_URL=postgres://app:" + fake(alnum, 16) + "@db.internal:5432/prod\n",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fake(alnum, 43) + "\n",
		`{"client_secret": "` + fake(alnum, 32) + `"}` + "\n",
	}
}

// typicalOutput returns about size bytes of typical output, with a
// secret every 50 chunks when withSecrets, and how many secrets it has.
func typicalOutput(size int, withSecrets bool) (string, int) {
	chunks, secrets := typicalChunks(), secretLines()
	var b strings.Builder
	n := 0
	for i := 0; b.Len() < size; i++ {
		b.WriteString(chunks[i%len(chunks)])
		if withSecrets && i%50 == 49 {
			b.WriteString(secrets[n%len(secrets)])
			n++
		}
	}
	return b.String(), n
}

func TestSecretsLeavesTypicalOutput(t *testing.T) {
	for _, c := range typicalChunks() {
		if got := Secrets(c); got != c {
			t.Errorf("Secrets changed text with no secret:\n in  %q\n got %q", c, got)
		}
	}
	text, n := typicalOutput(1<<20, true)
	if got := strings.Count(Secrets(text), "[REDACTED:"); got != n {
		t.Errorf("%d secrets redacted in typical output, want %d", got, n)
	}
}

// BenchmarkSecrets redacts 10 MB of typical terminal and code output
// with a few secrets in it.
func BenchmarkSecrets(b *testing.B) {
	text, _ := typicalOutput(10<<20, true)
	b.SetBytes(int64(len(text)))
	Secrets("warm up the rules") // compiled once per process, not per call
	for b.Loop() {
		Secrets(text)
	}
}

// TestSecretsLinearTime runs Secrets on texts made to provoke its rules
// (anchors repeated, runs of token characters, splitting characters) at
// two sizes, 64 KB and eight times that, and checks how the time grows.
// Linear rules take about 8× as long on the larger text, and a
// quadratic one 64×. The test fails above 32×: it compares a text with
// itself at two sizes, so a loaded machine or the race detector slows
// both alike. How fast Secrets is goes in BenchmarkSecrets, not here.
func TestSecretsLinearTime(t *testing.T) {
	if testing.Short() {
		t.Skip("times texts of up to 512 KB")
	}
	if raceDetector {
		t.Skip("the race detector's instrumentation sets the times; .ci/run runs this test without -race")
	}
	const small, factor = 64 << 10, 8
	var b64 strings.Builder
	for x := uint32(1); b64.Len() < 4096; {
		x = x*1664525 + 1013904223
		b64.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"[x>>26])
	}
	for _, unit := range []string{
		"a=", "eyJ", "eyJhbGciOiJIUzI1NiJ9.", "sk-", "sk-a", "sk_", "://", "://a:", "https://ab1234567890", "token=", "?token=a",
		"&key=", "key: ", "password=", "password: x ", "TOKEN=x", "a.", "gl.", "glpat-", "ghp_", "1234567890:",
		":AA", "bot12345678:", "Bearer ", "authorization: bearer ", "-u a:", "-----BEGIN PRIVATE KEY-----",
		"AGE-SECRET-KEY-1", "key", "keykey:", "secret_", "a.key=", "a.token.", "MT", "ghp_a\u200b", "sk-\x1b", "ghp_abcdefghij\n", "\x1b[0m", "A", "0", "[REDACTED:x]", "[REDACTED:",
		b64.String(), strings.Repeat("x", 300) + "\u200b",
	} {
		text := strings.Repeat(unit, factor*small/len(unit)+1)[:factor*small]
		d1, d8 := timeSecrets(text[:small]), timeSecrets(text)
		growth := float64(d8) / float64(max(d1, time.Microsecond))
		t.Logf("%-24.20q %8v → %8v  %5.1f×", unit, d1, d8, growth)
		if growth > 4*factor {
			t.Errorf("%.20q: %d KB took %v, %d KB %v, %.0f× longer; linear time is about %d×", unit, small>>10, d1, factor*small>>10, d8, growth, factor)
		}
	}
}

// timeSecrets returns the shortest time of Secrets on text, over runs
// that add up to at least 20 ms (three at the least), with the garbage
// collector held off so that a collection does not land in one run.
func timeSecrets(text string) time.Duration {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	best, total := time.Duration(1<<62), time.Duration(0)
	for n := 0; n < 3 || total < 20*time.Millisecond; n++ {
		start := time.Now()
		Secrets(text)
		d := time.Since(start)
		best, total = min(best, d), total+d
	}
	return best
}
