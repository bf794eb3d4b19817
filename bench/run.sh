#!/usr/bin/env bash
# Reports hermes's whole-process figures and the adapters' SSE parsing
# throughput. Numbers only: nothing here passes or fails on time.
#
#   bash bench/run.sh            # from the repository root
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== binary size, cold start and memory (go run ./bench/startup)"
go run ./bench/startup -runs "${RUNS:-41}"

echo
echo "== SSE parsing throughput per adapter"
go test -run '^$' -bench 'Stream$|^BenchmarkReader$' -benchtime "${BENCHTIME:-2s}" ./internal/llm/sse ./internal/llm/openai ./internal/llm/anthropic |
	grep -E '^(Benchmark|ok|FAIL)'

echo
echo "== agent loop: cost per iteration, 200-message history, 40 tools, zero-latency model"
go test -run '^$' -bench 'LoopIteration' -benchtime "${BENCHTIME:-2s}" ./internal/agent | grep -E '^(Benchmark|ok|FAIL)'

echo
echo "== cron scheduler on the real clock: lateness of an @every 1s job, idle goroutines, allocations per fire"
go test -run '^$' -bench 'RealClock' -benchtime "${CRON_FIRES:-5}x" ./internal/cron | grep -E '^(Benchmark|ok|FAIL)'

echo
echo "== tool rounds of the real binary: hermes's own CPU per round, wall, peak RSS (go run ./bench/loop)"
go run ./bench/loop -rounds "${ROUNDS:-30,150}" -reps "${LOOP_REPS:-5}"

echo
echo "== session store: appends and search latency (go run ./bench/store; STORE_MESSAGES=1000000 for the 1M figure)"
go run ./bench/store -n "${STORE_MESSAGES:-100000}"

echo
echo "== long-term memory: recall@5 and false recall on the recall set; recall latency at 10,000 facts"
go run ./bench/recall
if command -v node > /dev/null && command -v npm > /dev/null; then
	echo "-- with a real embedding model, the Universal Sentence Encoder lite from npm (bench/recall/uselite/run.sh)"
	bash bench/recall/uselite/run.sh
fi
go test -run '^$' -bench 'RecallLatency' -benchtime 3x ./internal/memory/facts | grep -E '^(Benchmark|ok|FAIL)'

echo
echo "== hermes migrate hermes-agent: sessions imported from a Hermes Agent state.db"
go test -run '^$' -bench 'ImportSessions' -benchtime 3x ./internal/migrate/hermesagent | grep -E '^(Benchmark|ok|FAIL)'

echo
echo "== a 300-turn chat with and without compression: tokens per call, cacheable prefix (go run ./bench/longsession)"
go run ./bench/longsession -turns "${TURNS:-300}"

echo
echo "== idle hermes serve: RSS and anonymous memory with 0 and 1,000 jobs, and after jobs ran (go run ./bench/serve)"
go run ./bench/serve -reps "${SERVE_REPS:-3}"

echo
echo "== the gateway under load: 1,000 Telegram users over 10 simulated minutes, memory, lost messages, overhead per message (go run ./bench/gateway)"
go run ./bench/gateway -reps "${GATEWAY_REPS:-1}"
go run ./bench/gateway -idle -reps "${SERVE_REPS:-3}"
go run ./bench/gateway -idle -platforms all -reps "${SERVE_REPS:-3}"

echo
echo "== hermes acp: start to initialize answered, as an editor waits for it (go run ./bench/acp)"
go run ./bench/acp -runs "${RUNS:-41}"

echo
echo "== the API under load: 200 streaming chat completions at once, overhead over the model's time to first token, 429 past the limit, memory (go run ./bench/api)"
go run ./bench/api -conc "${API_CONC:-200}" -rounds "${API_ROUNDS:-5}" -reps "${SERVE_REPS:-3}"

echo
echo "== hermes batch run: prompts per second with 1, 4 and 16 workers against a model taking 200 ms per call, peak RSS (go run ./bench/batch)"
go run ./bench/batch -prompts "${BATCH_PROMPTS:-96}" -reps "${BATCH_REPS:-1}"
