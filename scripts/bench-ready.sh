#!/usr/bin/env bash
# Start-up to ready: how long a `souk serve` takes from its start to `GET /health/ready` answering
# 200 (its catalog and storefront indexes loaded), and its resident memory then, on PostgreSQL
# (scripts/postgres.sh) or SQLite (BACKEND=sqlite) with APPS apps (default 1,000,000) seeded by `souk bench seed-catalog`.
#
#   scripts/bench-ready.sh                          # release build, seeds a new database, 3 starts
#   APPS=100000 RUNS=1 scripts/bench-ready.sh
#   SOUK_BIN=.build/debug/souk SOUK_DATABASE_URL=postgres://…/db scripts/bench-ready.sh   # a seeded database, kept
#   BACKEND=sqlite SOUK_DATA_DIR=/tmp/souk-sqlite-1m scripts/bench-ready.sh   # SQLite: that folder's souk.sqlite,
#                                                   # migrated and seeded when missing, kept
#
# With SOUK_DATABASE_URL the database is used as it is (migrated and seeded before; it is not
# dropped); otherwise a database is made, seeded and dropped at the end. Prints per start: seconds
# to the port (first /health 200), seconds to ready, the CPU seconds the process used until then
# (user + system: on a busy machine the wall time mostly measures the neighbours), VmRSS and VmHWM
# (peak) at ready, and the load times the server logged for each index.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

APPS="${APPS:-1000000}"
RUNS="${RUNS:-3}"
SOUK="${SOUK_BIN:-$(release_souk)}"
WORK=$(mktemp -d /tmp/souk-bench-ready.XXXXXX)
SERVER=""
DB=""
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$DB" ]; then psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export SOUK_DATA_DIR="${SOUK_DATA_DIR:-$WORK/data}" SOUK_LOG_LEVEL=info
if [ "${BACKEND:-postgres}" = sqlite ]; then
  unset SOUK_DATABASE_URL
  SQLITE="$SOUK_DATA_DIR/souk.sqlite"
  if [ ! -s "$SQLITE" ]; then
    mkdir -p "$SOUK_DATA_DIR"
    "$SOUK" migrate >&2
    echo "bench-ready: seeding $APPS apps into $SQLITE…" >&2
    "$SOUK" bench seed-catalog --apps "$APPS" >&2
  fi
  APPS_NOW=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM apps").fetchone()[0])' "$SQLITE")
else
  if [ -z "${SOUK_DATABASE_URL:-}" ]; then
    bench_database "souk_bench_ready_$$"
    echo "bench-ready: seeding $APPS apps…" >&2
    "$SOUK" bench seed-catalog --apps "$APPS" >&2
  fi
  APPS_NOW=$(psql "$SOUK_DATABASE_URL" -Atc "SELECT count(*) FROM apps")
fi

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$1"; }
kb() { awk -v k="$1" '$1 == k":" {printf "%d MB", $2 / 1024}' "/proc/$2/status"; }
cpu() { awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.1f s", ($12 + $13) / hz}' "/proc/$1/stat"; }

echo "| start | to the port (/health) | to ready (/health/ready) | CPU until ready | VmRSS at ready | VmHWM at ready | catalog index load | storefront index build |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for run in $(seq 1 "$RUNS"); do
  PORT=$(free_port)
  LOG="$WORK/serve-$run.log"
  START=$(now)
  "$SOUK" serve --port "$PORT" >"$LOG" 2>&1 &
  SERVER=$!
  LIVE=""
  READY=""
  for _ in $(seq 1 60000); do   # up to about 50 minutes (a debug build is slow)
    if [ -z "$LIVE" ] && [ "$(code "http://127.0.0.1:$PORT/health")" = 200 ]; then LIVE=$(since "$START"); fi
    if [ -n "$LIVE" ] && [ "$(code "http://127.0.0.1:$PORT/health/ready")" = 200 ]; then READY=$(since "$START"); break; fi
    kill -0 "$SERVER" 2>/dev/null || { tail -20 "$LOG" >&2; echo "bench-ready: souk exited" >&2; exit 1; }
    sleep 0.05
  done
  [ -n "$READY" ] || { echo "bench-ready: not ready in time" >&2; exit 1; }
  RSS=$(kb VmRSS "$SERVER"); HWM=$(kb VmHWM "$SERVER"); CPU=$(cpu "$SERVER")
  took() { grep "$1 loaded" "$LOG" | grep -o 'took=[0-9.]*' | head -1 | awk -F= '{printf "%.1f s", $2}'; }
  echo "| $run ($APPS_NOW apps) | ${LIVE} s | ${READY} s | $CPU | $RSS | $HWM | $(took 'catalog index') | $(took 'storefront index') |"
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
  SERVER=""
done
