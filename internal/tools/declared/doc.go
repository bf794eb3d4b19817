// Package declared turns YAML declarations into tools, so existing APIs,
// scripts and databases become tools without code. Files
// $HERMES_HOME/tools/*.yaml, and the tools: list of config.yaml, hold
// tools: (a list of Spec) and optionally connections: (named databases
// for sql tools, shared by all files):
//
//	tools:
//	  - name: search_orders
//	    description: 查询订单列表，可按用户ID、订单状态、时间范围过滤。不要用于统计报表。
//	    parameters:
//	      type: object
//	      properties:
//	        user_id: {type: string, description: 用户唯一标识}
//	        status: {type: string, enum: [pending, paid, shipped, cancelled]}
//	        start_date: {type: string, format: date, description: 开始日期，格式YYYY-MM-DD，例如2024-01-01}
//	      required: []
//	    timeout: 10s
//	    retry: {attempts: 2, backoff: [3s, 10s]}
//	    http:
//	      method: GET
//	      url: "${ORDERS_API}/orders"
//	      headers: {Authorization: "Bearer ${ORDERS_TOKEN}"}
//	      query: {user_id: "{{.user_id}}", status: "{{.status}}", from: "{{.start_date}}"}
//	      select: ".items"
//	  - name: disk_report
//	    description: Disk usage of one directory.
//	    parameters: {type: object, properties: {path: {type: string}}, required: [path]}
//	    command:
//	      argv: ["du", "-sh", "{{.path}}"]
//
// # Templates
//
// Values are Go text/template templates over the call's arguments. Every
// field a template names must be a property of the parameters schema;
// this is checked when the file is loaded. An absent optional argument
// renders empty. Helpers: urlquery, pathescape, json, shellquote,
// default ({{default "10" .limit}}) and join ({{join .tags ","}}).
// Inserted values are made safe for where they go: path-escaped in a URL
// (query-escaped after its "?"), shell-quoted in a shell command line.
//
// ${NAME} and ${NAME:-default} name environment variables (the process
// environment, then $HERMES_HOME/.env), resolved at call time and
// inserted unescaped. Values of variables whose names look secret
// (redact.SecretEnvName) never reach the model, the logs or a trace:
// everything shown has them replaced by ${NAME}.
//
// # Approval
//
// A command tool's command is judged and approved the way the terminal's
// are, with the arguments filled in: the invocation's approver (or the
// loader's Fallback) gets the command line a shell would run, a cd into
// its directory and the variables it sets in front, stdin as a
// here-string. A hardline command is refused, a dangerous one asked
// about, and with nobody to approve it nothing runs. approval: always asks
// for every call on top of that, for any kind of tool.
//
// # The URL guard
//
// http tools send through the URL guard http_request uses
// (safety/netguard), after templating and on every redirect: a model that
// fills in part of a URL cannot make a tool fetch the machine's own
// services or a cloud metadata endpoint. The exception is the host the
// author wrote into the URL, literally or through ${NAME} ("${ORDERS_API}/orders"),
// with nothing from the arguments before the end of its authority: the
// user chose that service, so it is reached even on a private address
// (security.allow_private_urls lifts the guard for every host).
//
// # Results
//
// An http tool answers {"status": 200, "data": ...}: the JSON body
// (narrowed by select:) or the body as text, with "note" when the body
// was cut at max_bytes or select found nothing. An unexpected status is
// an error whose code follows the status (400/422 invalid_arguments,
// 401/403 denied, 404 not_found, 408/429/5xx upstream_unavailable).
//
// A command tool with output: text answers {"exit_code": 0, "stdout":
// "...", "stderr": "..."} (stderr only when not empty); with output: json
// it answers stdout parsed as JSON. A non-zero exit is an internal error
// "exit status N: <stderr tail>" whose data holds the tail of stdout.
//
// An sql tool answers sqlexec's result: columns, rows, row_count.
//
// # Loading
//
// Loader reads the files, registers the valid tools and records
// problems with file, line, tool and field. Watch reloads on change; a
// file that no longer parses keeps its last good tools until fixed.
package declared
