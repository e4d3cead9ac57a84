#!/usr/bin/env bash
# Resident memory of one `souk serve` over a large catalog (docs/benchmarks.md, "Memory per
# process"): seeds APPS apps (default 1,000,000) with `souk bench seed-catalog` into a PostgreSQL
# database (SOUK_TEST_POSTGRES_URL, or the throwaway cluster of scripts/postgres.sh), starts one
# process and reports its VmRSS after start, after the first update check (the catalog index) and
# after one page of each storefront kind (the storefront index), with each step's time.
#
#   scripts/bench-memory.sh                          # 1,000,000 apps, release build
#   APPS=100000 SOUK_BIN=.build/debug/souk scripts/bench-memory.sh
#   KEEP_DB=souk_bench_memory_1m scripts/bench-memory.sh   # seed once, keep the database, reuse it
#
# Then, when wrk is installed, WRK_SECONDS (default 10) of update checks naming 30 current apps
# spread over the catalog (scripts/bench-updates.sh's request) give requests/s and server CPU per
# request: run once with APPS=100 and once with APPS=1000000 to compare (bench-updates.sh, with
# SIZES="100 1000000" BACKENDS=postgres, does the same with a release build beside nginx).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
APPS="${APPS:-1000000}"
SOUK="${SOUK_BIN:-$(release_souk)}"
WORK=$(mktemp -d /tmp/souk-bench-memory.XXXXXX)
SERVER=""
[ -n "${SOUK_TEST_POSTGRES_URL:-}" ] || eval "$(scripts/postgres.sh env)"
DB="${KEEP_DB:-souk_bench_memory_$$}"
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  [ -n "${KEEP_DB:-}" ] || psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning
SOUK_DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$DB")
export SOUK_DATABASE_URL
if ! psql "$SOUK_DATABASE_URL" -qAtc "SELECT 1" >/dev/null 2>&1; then
  psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB" >/dev/null
fi
"$SOUK" migrate >/dev/null
HAVE=$(psql "$SOUK_DATABASE_URL" -qAtc "SELECT count(*) FROM apps WHERE apple_item_id >= 7000000000")
if [ "$HAVE" != "$APPS" ]; then
  [ "$HAVE" = 0 ] || { echo "database $DB holds $HAVE bench apps, not $APPS" >&2; exit 1; }
  echo "bench-memory: seeding $APPS apps into $DB…" >&2
  "$SOUK" bench seed-catalog --apps "$APPS" >&2
fi

PORT=$(free_port)
"$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
# A debug build on a busy machine, or a large catalog, can take longer than wait_healthy's ten seconds.
for _ in $(seq 1 3000); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
BASE="http://127.0.0.1:$PORT"
rss() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$SERVER/status"; }
echo "| step | took | VmRSS after |"
echo "| --- | --- | --- |"
echo "| started (\`/health\` answers) | | $(rss) MB |"
step() {
  local name="$1"; shift
  local took
  took=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$@")
  case "$took" in 2*) ;; *) echo "$name answered ${took%% *}" >&2; exit 1 ;; esac
  echo "| $name | ${took#* } s | $(rss) MB |"
}
MIDDLE=$((APPS / 2))
step "update check (30 apps; builds the catalog index)" -X POST -H 'Content-Type: application/json' \
  --data "{\"apps\":[{\"appleItemId\":\"$((7000000000 + MIDDLE))\",\"appleVersionId\":\"$((8000000000 + MIDDLE))\"}],\"platform\":\"iOS\",\"osVersion\":\"18.0\"}" \
  "$BASE/marketplace-kit/v1/updates"
step "\`/\` (builds the storefront index)" "$BASE/"
step "\`/apps?page=$((APPS / 100))\`" "$BASE/apps?page=$((APPS / 100))"
step "\`/categories/productivity\`" "$BASE/categories/productivity"
step "\`/search?q=garden\`" "$BASE/search?q=garden"
step "\`/search?q=bench+$MIDDLE\`" "$BASE/search?q=bench+$MIDDLE"
step "\`/api/v1/apps\`" "$BASE/api/v1/apps"
step "\`/api/v1/apps?query=garden\`" "$BASE/api/v1/apps?query=garden"
step "\`/apps/$((7000000000 + MIDDLE))\`" "$BASE/apps/$((7000000000 + MIDDLE))"
step "\`/sitemap.xml\`" "$BASE/sitemap.xml"
echo "| peak (VmHWM) | | $(awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$SERVER/status") MB |"

if command -v wrk >/dev/null && [ "${WRK_SECONDS:-10}" != 0 ]; then
  python3 -c '
import json, sys
size = int(sys.argv[1])
ids = sorted({k * size // 30 for k in range(30)})
body = json.dumps({"apps": [{"appleItemId": str(7000000000 + i), "appleVersionId": str(8000000000 + i)} for i in ids],
                   "platform": "iOS", "osVersion": "18.0"})
print("wrk.method = \"POST\"\nwrk.body = [[" + body + "]]\nwrk.headers[\"Content-Type\"] = \"application/json\"")' "$APPS" >"$WORK/post.lua"
  before=$(cpu_ticks "$SERVER")
  wrk -t2 -c64 -d"${WRK_SECONDS:-10}s" -s "$WORK/post.lua" "$BASE/marketplace-kit/v1/updates" >"$WORK/wrk.txt"
  after=$(cpu_ticks "$SERVER")
  requests=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  rate=$(awk '/Requests\/sec/ {printf "%d", $2}' "$WORK/wrk.txt")
  grep -q "Non-2xx" "$WORK/wrk.txt" && { cat "$WORK/wrk.txt" >&2; exit 1; }
  echo
  echo "update checks (30 apps, $APPS in the catalog): $rate req/s, $(( (after - before) * 1000000 / $(getconf CLK_TCK) / requests )) µs of server CPU per request; VmRSS $(rss) MB"
fi
