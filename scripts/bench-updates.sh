#!/usr/bin/env bash
# The update-check benchmark (app-data issue, item 7). For each storage backend and catalog size:
# seed a synthetic catalog (`souk bench seed-catalog`), start a release `souk serve`, and measure
# `POST /marketplace-kit/v1/updates` naming 30 installed apps that are all current (the common
# case) with wrk: peak requests/s, server CPU per request, and latency percentiles at about half
# of the peak rate. In the same run it measures nginx serving a static JSON file of the answer's
# size, and the framework's floor (`souk bench floor`: Hummingbird decoding the same request and
# encoding a same-sized answer with Codable, no storage, no middleware).
#
#   scripts/bench-updates.sh                       # SQLite and PostgreSQL, 100 and 100,000 apps
#   BACKENDS=sqlite SIZES=100000 DURATION=5 scripts/bench-updates.sh
#   SOUK_BIN=.build/release/souk KEEP_DBS=1 BACKENDS=postgres SIZES="100 1000000" scripts/bench-updates.sh
#
# SOUK_BIN names a built binary (otherwise a release build is made first). KEEP_DBS=1 keeps each
# PostgreSQL database (souk_bench_updates_SIZE) and seeds it only when it does not yet hold SIZE
# bench apps, so a 1,000,000-app catalog is seeded once (a copy of another seeded database will do:
# CREATE DATABASE souk_bench_updates_1000000 TEMPLATE souk_compact_1m).
# PostgreSQL: uses SOUK_TEST_POSTGRES_URL, or starts the throwaway cluster of scripts/postgres.sh.
# Needs wrk and nginx (apt-get install wrk nginx-light). Numbers in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
SIZES="${SIZES:-100 100000}"
BACKENDS="${BACKENDS:-sqlite postgres}"
require_load_tools
if [ -n "${SOUK_BIN:-}" ]; then SOUK="$SOUK_BIN"; else
  SOUK=$(release_souk 2>/dev/null) || { echo "release build failed: swift build -c release --product souk" >&2; exit 1; }
fi
WORK=$(mktemp -d /tmp/souk-bench-updates.XXXXXX)
chmod 755 "$WORK"
PIDS=()
DATABASES=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  nginx -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
  for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
export SOUK_LOG_LEVEL=warning
ANSWER='{"failures":[],"updates":[]}'

# The request: 30 apps spread over a catalog of $1 apps, each at its current version.
body() {
  python3 -c '
import json, sys
size = int(sys.argv[1])
ids = sorted({k * size // 30 for k in range(30)})
print(json.dumps({"apps": [{"appleItemId": str(7000000000 + i), "appleVersionId": str(8000000000 + i)} for i in ids],
                  "platform": "iOS", "osVersion": "18.0"}))' "$1"
}

# wrk scripts: a POST of $WORK/body.json, and the same with a pause per connection (fixed-rate load).
write_lua() {
  cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$(cat "$WORK/body.json")]]
wrk.headers["Content-Type"] = "application/json"
LUA
  { cat "$WORK/post.lua"; echo "function delay() return $1 end"; } >"$WORK/paced.lua"
}

# Runs wrk at full load against $1 (pid $2, or 0 for none; $3: a wrk script other than the POST);
# prints "req/s p50 p99 µs-per-request".
peak() {
  local before after out requests
  before=$([ "$2" != 0 ] && cpu_ticks "$2" || echo 0)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "${3:-$WORK/post.lua}" "$1")
  after=$([ "$2" != 0 ] && cpu_ticks "$2" || echo 0)
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $1: $out" >&2; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '$1=="50%" {print $2}' <<<"$out") $(awk '$1=="99%" {print $2}' <<<"$out") $(python3 -c "print(round(($after-$before)/$(getconf CLK_TCK)/max($requests,1)*1e6))")"
}

# Runs wrk at about $2 requests/s against $1 (64 connections pausing between requests); prints "req/s p50 p99".
paced() {
  local pause out
  pause=$(python3 -c "print(max(1, round($CONNECTIONS * 1000 / $2)))")
  write_lua "$pause"
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/paced.lua" "$1")
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '$1=="50%" {print $2}' <<<"$out") $(awk '$1=="99%" {print $2}' <<<"$out")"
}

# nginx: the answer as a static file, fetched with GET (nginx refuses POST to static files), and
# the same bytes from a POST to a `return 200` location: two views of the ceiling.
NGINX_PORT=$(free_port)
mkdir -p "$WORK/static/marketplace-kit/v1"
printf '%s' "$ANSWER" >"$WORK/static/marketplace-kit/v1/updates"
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; location / { root $WORK/static; default_type application/json; }
  location = /fixed { default_type application/json; return 200 '$ANSWER'; } } }
CONF
nginx -c "$WORK/nginx.conf"
FLOOR_PORT=$(free_port)
"$SOUK" bench floor --port "$FLOOR_PORT" >"$WORK/floor.log" 2>&1 &
PIDS+=($!)
FLOOR_PID=$!
sleep 1

body 30 >"$WORK/body.json"
write_lua 1
echo 'wrk.method = "GET"' >"$WORK/get.lua"
read -r N_RPS _ N_P99 _ <<<"$(peak "http://127.0.0.1:$NGINX_PORT/marketplace-kit/v1/updates" 0 "$WORK/get.lua")"
read -r R_RPS _ R_P99 _ <<<"$(peak "http://127.0.0.1:$NGINX_PORT/fixed" 0)"
read -r F_RPS _ F_P99 F_CPU <<<"$(peak "http://127.0.0.1:$FLOOR_PORT/marketplace-kit/v1/updates" "$FLOOR_PID")"
echo "nginx static file (GET): $N_RPS req/s (p99 $N_P99)"
echo "nginx POST, return 200:  $R_RPS req/s (p99 $R_P99)"
echo "Hummingbird floor route: $F_RPS req/s (p99 $F_P99, $F_CPU µs CPU/request) = $(python3 -c "print(round(100*$F_RPS/$N_RPS))")% of nginx"
echo
printf '%-10s %8s | %9s %6s %6s %6s %8s | %12s %8s %8s\n' backend apps "req/s" "%nginx" "%POST" "%floor" "µs/req" "half-load r/s" p50 p99

for backend in $BACKENDS; do
  if [ "$backend" = postgres ] && [ -z "${SOUK_TEST_POSTGRES_URL:-}" ]; then eval "$(scripts/postgres.sh env)"; fi
  for size in $SIZES; do
    export SOUK_DATA_DIR="$WORK/data-$backend-$size"
    unset SOUK_DATABASE_URL
    SEED=1
    if [ "$backend" = postgres ]; then
      if [ "${KEEP_DBS:-}" = 1 ]; then db="souk_bench_updates_$size"; else db="souk_bench_$$_$size"; DATABASES+=("$db"); fi
      SOUK_DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$db")
      export SOUK_DATABASE_URL
      psql "$SOUK_DATABASE_URL" -qAtc "SELECT 1" >/dev/null 2>&1 || psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $db" >/dev/null
      "$SOUK" migrate >/dev/null
      HAVE=$(psql "$SOUK_DATABASE_URL" -qAtc "SELECT count(*) FROM apps WHERE apple_item_id >= 7000000000")
      if [ "$HAVE" = "$size" ]; then SEED=0
      elif [ "$HAVE" != 0 ]; then echo "database $db holds $HAVE bench apps, not $size" >&2; exit 1; fi
    fi
    [ "$SEED" = 0 ] || "$SOUK" bench seed-catalog --apps "$size" >/dev/null
    PORT=$(free_port)
    "$SOUK" serve --port "$PORT" >"$WORK/serve-$backend-$size.log" 2>&1 &
    SERVER=$!
    PIDS+=("$SERVER")
    wait_healthy "$PORT"
    URL="http://127.0.0.1:$PORT/marketplace-kit/v1/updates"
    body "$size" >"$WORK/body.json"
    write_lua 1
    GOT=$(curl -s -H 'Content-Type: application/json' --data-binary @"$WORK/body.json" "$URL")
    [ "$GOT" = "$ANSWER" ] || { echo "unexpected answer: $GOT" >&2; exit 1; }
    read -r S_RPS _ _ S_CPU <<<"$(peak "$URL" "$SERVER")"
    read -r H_RPS H_P50 H_P99 <<<"$(paced "$URL" "$(python3 -c "print($S_RPS / 2)")")"
    RSS=$(awk '/VmRSS/ {print $2}' "/proc/$SERVER/status")
    printf '%-10s %8s | %9s %5s%% %5s%% %5s%% %8s | %12s %8s %8s   (RSS %s MB)\n' "$backend" "$size" "$S_RPS" \
      "$(python3 -c "print(round(100*$S_RPS/$N_RPS))")" "$(python3 -c "print(round(100*$S_RPS/$R_RPS))")" \
      "$(python3 -c "print(round(100*$S_RPS/$F_RPS))")" "$S_CPU" \
      "$H_RPS" "$H_P50" "$H_P99" "$((RSS / 1024))"
    kill "$SERVER"
    wait "$SERVER" 2>/dev/null || true
  done
done
