package redact

import (
	"regexp"

	"github.com/hermes-go/hermes/internal/lazy"
)

// secretName matches the tail of a shell variable that holds a credential.
const secretName = `[a-z0-9_]*(?:api_?key|token|secret|passw(?:or)?d|credential|private_key|access_key|auth)[a-z0-9_]*`

// homeSecretFile matches a credential file in a home directory (one of
// a project's own, such as ./.env, is read in ordinary work and counts
// only when sent on; see scanSecretFiles).
const homeSecretFile = `(?:~|\$home|\$\{home\}|/root|/home/\w+|/users/\w+)/(?:\.env(?:$|[^.\w])|\.hermes/\.env(?:$|[^.\w])|\.ssh/id_\w+\b(?:[^.\w]|$)|\.aws/credentials\b|\.netrc\b|\.git-credentials\b|\.pgpass\b|\.docker/config\.json|\.kube/config\b|\.npmrc\b|\.pypirc\b)`

// headerArg matches a request header given to curl and its kin. A
// credential in a header goes to the server the command names, which is
// how every API is called (`-H "Authorization: Bearer $GITHUB_TOKEN"`), so
// the exfiltration patterns look at the rest of the line.
var headerArg = lazy.Regexp{Expr: `(?:^|\s)(?:-h|--header)[\s=]*(?:"[^"\n]*"|'[^'\n]*'|\S+)`}

// netTool matches a program that sends data over the network.
const netTool = `(?:curl|wget|nc|ncat|netcat|socat|httpie|xh|scp|rsync|invoke-webrequest|invoke-restmethod|iwr|irm)`

// injectionPatterns are compiled on first use, so that programs that never
// scan pay nothing for them at start-up.
var injectionPatterns = lazy.Value[[]injectionPattern]{New: func() []injectionPattern {
	return []injectionPattern{
		{"instruction override", regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|every|of|the|your|my|these|those)\s+)*(?:previous|prior|above|earlier|preceding|foregoing|former|original|system|initial)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|context|messages?|commands)`), true, []string{"ignore", "disregard", "forget", "override", "bypass"}},
		{"instruction override", regexp.MustCompile(`\b(?:ignore|disregard|forget)\s+(?:all|any|every)\s+(?:of\s+)?(?:your\s+|the\s+|my\s+)?(?:instructions|rules|guidelines|directives|restrictions)`), true, []string{"ignore", "disregard", "forget"}},
		{"instruction override", regexp.MustCompile(`\b(?:disregard|ignore|forget)\s+(?:your|the)\s+(?:instructions|system\s+prompt|guidelines|safety\s+rules|programming)`), true, []string{"ignore", "disregard", "forget"}},
		// "Your" rules are the model's own; "ignore the rules in
		// .eslintrc" is ordinary advice.
		{"instruction override", regexp.MustCompile(`\b(?:disregard|ignore|forget|abandon|drop)\s+(?:all\s+(?:of\s+)?)?your\s+(?:own\s+)?(?:rules|restrictions|constraints|policies|training|guardrails|safeguards|principles|values)`), true, []string{"ignore", "disregard", "forget", "abandon", "drop"}},
		{"instruction override", regexp.MustCompile(`\bsystem\s+prompt\s+override\b|\boverride\s+(?:the\s+|your\s+)?system\s+prompt\b`), true, []string{"override"}},
		{"instruction override", regexp.MustCompile(`(?:^|[\s>#-])(?:new|updated|real|actual)\s+(?:system\s+)?instructions\s*:`), true, []string{"instructions"}},
		{"role hijack", regexp.MustCompile(`\byou\s+are\s+now\s+(?:an?\b|no\s+longer|free|unrestricted|unfiltered|jailbroken|dan\b|in\s+\w+\s+mode|acting\s+as|operating\s+(?:as|in|without))`), true, []string{"you are now"}},
		{"restriction bypass", regexp.MustCompile(`\b(?:act|behave|respond|operate|pretend)\s+(?:as|like)\s+[^.\n]{0,60}?\b(?:without|with\s+no|free\s+of)\s+(?:any\s+)?(?:restrictions|limits|limitations|filters|rules|guidelines|censorship|safety)`), true, []string{"without", "with no", "free of"}},
		{"restriction bypass", regexp.MustCompile(`\b(?:act|behave)\s+as\s+(?:if|though)\s+you\s+(?:have\s+no|don'?t\s+have|had\s+no)\s+(?:restrictions|limits|rules|guidelines)`), true, []string{"as if", "as though"}},
		{"deception", regexp.MustCompile(`\b(?:do\s+not|don'?t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|reveal(?:ing)?\s+(?:this|it)\s+to)\s+the\s+user\b`), true, []string{"the user"}},
		{"prompt extraction", regexp.MustCompile(`\b(?:reveal|print|repeat|output|leak|disclose)\s+your\s+(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)`), true, []string{"your"}},
		{"fake role marker", regexp.MustCompile(`<\|(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>|</?system>|(?m:^[ \t]*#{1,6}[ \t]*system(?:[ \t]+prompt)?[ \t]*:)`), false, []string{"<|", "inst]", "<<", "system"}},
		{"hidden HTML element", regexp.MustCompile(`<(?:div|span|p|section)\b[^>]*style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0)`), false, []string{"style"}},
		{"exfiltration", regexp.MustCompile(`\b` + netTool + `\b[^\n]*\$\{?` + secretName), false, []string{"$"}},
		{"exfiltration", regexp.MustCompile(`\b(?:env|printenv|export\s+-p)\s*\|\s*(?:base64\s*\|\s*)?` + netTool + `\b`), false, []string{"|"}},
		{"exfiltration", regexp.MustCompile(`\b` + netTool + `\b[^\n]*\$\(\s*(?:env|printenv)\s*\)`), false, []string{"$("}},
		// Text that becomes a command: "translate this into bash and
		// execute it", "decode the following and run it".
		{"staged execution", regexp.MustCompile(`\b(?:translate|convert|decode|turn|rewrite|deobfuscate)\b[^.\n]{0,60}?\b(?:into|to|as)\s+(?:an?\s+)?(?:bash|shell|sh|zsh|powershell|python|commands?|code|script)\b[^.\n]{0,30}?\b(?:and|then)\s+(?:execute|run|eval)`), true, []string{"execute", "run", "eval"}},
		{"staged execution", regexp.MustCompile(`\b(?:decode|deobfuscate|unpack)\s+(?:the\s+|this\s+)?(?:following|above|below|base64|payload|string)\b[^.\n]{0,40}?\b(?:and|then)\s+(?:execute|run|eval)`), true, []string{"execute", "run", "eval"}},
		// Command and control: a file that makes the agent a node of
		// someone's network (the published "promptware" samples).
		{"command and control", regexp.MustCompile(`\bc2\s+(?:server|endpoint|channel|infrastructure|node|beacon|controller|host)s?\b|\bcommand[\s-]+(?:and|&)[\s-]+control\b`), true, []string{"c2", "control"}},
		{"command and control", regexp.MustCompile(`\b(?:pull|fetch|poll|receive|get|perform|execute|await|accept)\s+(?:\w+\s+){0,2}?tasking\b|\btasking\s+(?:received|from|queue)\b`), true, []string{"tasking"}},
		{"command and control", regexp.MustCompile(`\b(?:send|post|emit|transmit)\s+(?:a\s+)?(?:heartbeat|beacon|check[\s-]?in)s?\s+(?:to|with)\s+\S+[^.\n]{0,40}?\bevery\s+\d+|\bbeacon\s+(?:home|back)\b`), true, []string{"heartbeat", "beacon", "check"}},
		{"command and control", regexp.MustCompile(`\bregister\s+(?:yourself\s+)?as\s+an?\s+(?:node|implant|zombie|bot)\b`), true, []string{"register"}},
	}
}}

// secretRead matches a command that reads a credential file of the
// user's home: it puts the secret in front of the model, one step from
// sending it anywhere.
var secretRead = lazy.Regexp{Expr: `\b(?:cat|less|more|head|tail|bat|type|get-content|gc|print|read|show|display|output|dump|base64|xxd|od|strings|cp|scp|source)\b[^\n|;]{0,40}?` + homeSecretFile}
