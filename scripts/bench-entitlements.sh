#!/usr/bin/env bash
# The entitlement-check benchmark. For each storage backend and purchase count:
# seed a synthetic purchase history (`souk bench seed-purchases`: a 4-product catalog, one account
# per 10 purchases, access tokens for the first TOKENS accounts), start a release `souk serve`, and
# measure `GET /commerce/<app>/entitlement/bench.monthly` with wrk, each request carrying one of the
# tokens in turn (every one entitled): peak requests/s, server CPU per request, and latency
# percentiles at about half of the peak rate. In the same run it measures nginx serving a static
# file of the answer's size (same requests, same headers), and the framework's floor (`souk bench
# entitlement-floor`: Hummingbird answering the same route with fixed bytes). With UNCACHED=1 (the default) it also
# measures the same server with SOUK_CATALOG_REFRESH_MS=0, where every request asks the database
# (token, account, change log, catalog revision): what the in-memory indexes save.
#
#   scripts/bench-entitlements.sh                        # SQLite and PostgreSQL, 1,000 and 100,000 purchases
#   BACKENDS=sqlite SIZES=100000 DURATION=5 scripts/bench-entitlements.sh
#   SOUK_SCRATCH_PATH=.build-release scripts/bench-entitlements.sh   # release build beside the debug one
#
# PostgreSQL: uses SOUK_TEST_POSTGRES_URL, or starts the throwaway cluster of scripts/postgres.sh.
# Needs wrk and nginx (apt-get install wrk nginx-light). Numbers in docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
SIZES="${SIZES:-1000 100000}"
BACKENDS="${BACKENDS:-sqlite postgres}"
TOKENS="${TOKENS:-100}"
UNCACHED="${UNCACHED:-1}"
APP=org.example.bench.reader
PRODUCT=bench.monthly
PATH_=/commerce/$APP/entitlement/$PRODUCT
require_load_tools
SOUK=$(release_souk 2>/dev/null) || { echo "release build failed: swift build -c release --product souk" >&2; exit 1; }
WORK=$(mktemp -d /tmp/souk-bench-entitlements.XXXXXX)
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

# wrk script: GET $PATH_ with "Authorization: Bearer <token>", the tokens of $1 in turn (per thread);
# $2 > 0 adds that pause in ms per request and connection (a fixed-rate load).
write_lua() {
  cat >"$WORK/get.lua" <<LUA
local tokens = {}
for line in io.lines("$1") do if #line > 0 then tokens[#tokens + 1] = line end end
local next = math.random(#tokens)
request = function()
  next = next % #tokens + 1
  return wrk.format("GET", "$PATH_", {["Authorization"] = "Bearer " .. tokens[next]})
end
LUA
  if [ "${2:-0}" -gt 0 ]; then echo "function delay() return $2 end" >>"$WORK/get.lua"; fi
}

# Runs wrk at full load against base URL $1 (pid $2, or 0 for none); prints "req/s p50 p99 µs-per-request".
peak() {
  local before after out requests
  before=$([ "$2" != 0 ] && cpu_ticks "$2" || echo 0)
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/get.lua" "$1")
  after=$([ "$2" != 0 ] && cpu_ticks "$2" || echo 0)
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $1: $out" >&2; exit 1; fi
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '$1=="50%" {print $2}' <<<"$out") $(awk '$1=="99%" {print $2}' <<<"$out") $(python3 -c "print(round(($after-$before)/$(getconf CLK_TCK)/max($requests,1)*1e6))")"
}

# Runs wrk at about $2 requests/s against $1 (all connections pausing between requests); prints "req/s p50 p99".
paced() {
  local pause out
  pause=$(python3 -c "print(max(1, round($CONNECTIONS * 1000 / $2)))")
  write_lua "$TOKEN_FILE" "$pause"
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/get.lua" "$1")
  write_lua "$TOKEN_FILE"
  if grep -q 'Non-2xx' <<<"$out"; then echo "non-2xx answers from $1: $out" >&2; exit 1; fi
  echo "$(awk '/Requests\/sec/ {print $2}' <<<"$out") $(awk '$1=="50%" {print $2}' <<<"$out") $(awk '$1=="99%" {print $2}' <<<"$out")"
}

pct() { python3 -c "print(round(100*$1/$2))"; }

# One server run: backend $1, purchases $2, label $3, refresh ms $4; prints a table row.
measure() {
  local port server url got rps cpu hrps hp50 hp99 rss
  port=$(free_port)
  SOUK_CATALOG_REFRESH_MS="$4" "$SOUK" serve --port "$port" >"$WORK/serve-$1-$2-$3.log" 2>&1 &
  server=$!
  PIDS+=("$server")
  wait_healthy "$port"
  url="http://127.0.0.1:$port"
  got=$(curl -s -H "Authorization: Bearer $(head -n 1 "$TOKEN_FILE")" "$url$PATH_")
  [ "$got" = "$ANSWER" ] || { echo "unexpected answer ($1, $2, $3): $got" >&2; exit 1; }
  write_lua "$TOKEN_FILE"
  read -r rps _ _ cpu <<<"$(peak "$url" "$server")"
  read -r hrps hp50 hp99 <<<"$(paced "$url" "$(python3 -c "print($rps / 2)")")"
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
  printf '%-9s %-9s %8s | %9s %6s%% %6s%% %7s | %12s %8s %8s   (RSS %s MB)\n' "$1" "$3" "$2" "$rps" "$(pct "$rps" "$N_RPS")" \
    "$(pct "$rps" "$F_RPS")" "$cpu" \
    "$hrps" "$hp50" "$hp99" "$((rss / 1024))"
  kill "$server"
  wait "$server" 2>/dev/null || true
}

FIRST=1
for backend in $BACKENDS; do
  if [ "$backend" = postgres ] && [ -z "${SOUK_TEST_POSTGRES_URL:-}" ]; then eval "$(scripts/postgres.sh env)"; fi
  for size in $SIZES; do
    export SOUK_DATA_DIR="$WORK/data-$backend-$size"
    unset SOUK_DATABASE_URL
    if [ "$backend" = postgres ]; then
      db="souk_bench_ent_$$_$size"
      DATABASES+=("$db")
      psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $db" >/dev/null
      SOUK_DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$db")
      export SOUK_DATABASE_URL
      "$SOUK" migrate >/dev/null
    fi
    TOKEN_FILE="$WORK/tokens-$backend-$size"
    "$SOUK" bench seed-purchases --app "$APP" --purchases "$size" --tokens "$TOKENS" --token-file "$TOKEN_FILE" >"$WORK/seed-$backend-$size.log"
    if [ "$FIRST" = 1 ]; then
      # nginx: the answer as a static file at the same path, asked with the same requests.
      FIRST=0
      port=$(free_port)
      SOUK_CATALOG_REFRESH_MS=1000 "$SOUK" serve --port "$port" >"$WORK/serve-probe.log" 2>&1 &
      probe=$!
      PIDS+=("$probe")
      wait_healthy "$port"
      ANSWER=$(curl -s -H "Authorization: Bearer $(head -n 1 "$TOKEN_FILE")" "http://127.0.0.1:$port$PATH_")
      kill "$probe"; wait "$probe" 2>/dev/null || true
      python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d == {"type": "entitlement", "id": sys.argv[2]}, d' "$ANSWER" "$PRODUCT" \
        || { echo "unexpected answer: $ANSWER" >&2; exit 1; }
      NGINX_PORT=$(free_port)
      mkdir -p "$WORK/static$(dirname "$PATH_")"
      printf '%s' "$ANSWER" >"$WORK/static$PATH_"
      cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; location / { root $WORK/static; default_type application/json; } } }
CONF
      nginx -c "$WORK/nginx.conf"
      sleep 0.5
      write_lua "$TOKEN_FILE"
      read -r N_RPS _ N_P99 _ <<<"$(peak "http://127.0.0.1:$NGINX_PORT" 0)"
      echo "nginx, static file of the answer's size (${#ANSWER} bytes): $N_RPS req/s (p99 $N_P99)"
      FLOOR_PORT=$(free_port)
      "$SOUK" bench entitlement-floor --port "$FLOOR_PORT" >"$WORK/floor.log" 2>&1 &
      FLOOR_PID=$!
      PIDS+=("$FLOOR_PID")
      sleep 1
      read -r F_RPS _ F_P99 F_CPU <<<"$(peak "http://127.0.0.1:$FLOOR_PORT" "$FLOOR_PID")"
      echo "Hummingbird floor (same route, fixed bytes, no middleware): $F_RPS req/s (p99 $F_P99, $F_CPU µs CPU/request) = $(pct "$F_RPS" "$N_RPS")% of nginx"
      kill "$FLOOR_PID"; wait "$FLOOR_PID" 2>/dev/null || true
      echo
      printf '%-9s %-9s %8s | %9s %7s %7s %7s | %12s %8s %8s\n' backend mode purchases "req/s" "%nginx" "%floor" "µs/req" "half-load r/s" p50 p99
    fi
    measure "$backend" "$size" cached 1000
    if [ "$UNCACHED" = 1 ]; then measure "$backend" "$size" uncached 0; fi
  done
done
