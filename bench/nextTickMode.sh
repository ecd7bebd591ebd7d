#!/usr/bin/env bash
# One trial of docs/performance-content.md round 10: is this dauth process in the slow `nextTick` mode?
# Starts dauth as `npm start` does (through tsx, a fresh DATA_DIR) with --cpu-prof, warms `/healthz` for 5 s
# with autocannon (100 connections), measures 10 s, stops it, and prints the requests and `nextTick`'s share
# of the main thread's samples (before round 11's fix, src/tickObjectShape.ts: 0.4 % with nextTick's record caches
# monomorphic, 2–4 % with three megamorphic, 17–22 % with four; with it, 0.3–0.8 %).
#
#   bash bench/nextTickMode.sh [entry]        # entry: packages/server/src/main.ts (default) or another
#   DAUTH_NODE_ARGS="--allow-natives-syntax --require probe.cjs" bash bench/nextTickMode.sh
set -euo pipefail
cd "$(dirname "$0")/.."
entry="${1:-packages/server/src/main.ts}"
data="$(mktemp -d)"
profiles="$(mktemp -d)"
port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
# shellcheck disable=SC2086 # DAUTH_NODE_ARGS is a list of flags
HOST=127.0.0.1 PORT="$port" DATA_DIR="$data" LOG_LEVEL=warn \
  node --conditions=development --import tsx --cpu-prof --cpu-prof-dir="$profiles" ${DAUTH_NODE_ARGS:-} "$entry" \
  >"$data/out.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$data" "$profiles"' EXIT
for _ in $(seq 1 120); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz" 2>/dev/null && break
  sleep 1
done
node_modules/.bin/autocannon -c 100 -d 5 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1
node_modules/.bin/autocannon -c 100 -d 10 "http://127.0.0.1:$port/healthz" 2>&1 | grep -E 'requests in'
kill "$pid"
wait "$pid" || true
node --import tsx bench/profileTop.ts "$(ls -S "$profiles"/*.cpuprofile | head -1)" --last 10 --top 60 |
  grep -E 'non-idle|nextTick' || echo 'nextTick: under the top 60'
