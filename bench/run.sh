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
go test -run '^$' -bench 'Stream$|^BenchmarkReader$' -benchtime "${BENCHTIME:-2s}" ./llm/sse ./llm/openai ./llm/anthropic |
	grep -E '^(Benchmark|ok|FAIL)'
