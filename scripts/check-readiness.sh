#!/usr/bin/env bash
# Readiness on a large catalog, through a real process (docs/operations.md, "Readiness"): starts
# `souk serve` on a PostgreSQL database with APPS apps (default 1,000,000, seeded by `souk bench
# seed-catalog` unless SOUK_DATABASE_URL names a seeded, migrated database, which is kept) and
# polls every 50 ms until ready, then for SETTLE more seconds (default 3). It fails unless:
#   - liveness (`GET /health`) answers 200 on every poll from the first one that connects;
#   - readiness (`GET /health/ready`) answers 503 with `Retry-After` and problem JSON while the
#     indexes load (at least once: a catalog loaded before the first poll shows nothing), then
#     200 `{"status":"ready"}`, and never 503 again;
#   - an update check sent during the warm-up (it waits for the catalog index) is answered right:
#     30 current apps, `{"failures":[],"updates":[]}`.
# Prints the seconds to the port, to ready, and how long the warm-up update check took.
#
#   SOUK_BIN=.build/release/souk SOUK_DATABASE_URL=postgres://…/souk_ready_1m scripts/check-readiness.sh
#   APPS=100000 scripts/check-readiness.sh           # release build, seeds and drops a database
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

APPS="${APPS:-1000000}"
SETTLE="${SETTLE:-3}"
SOUK="${SOUK_BIN:-$(release_souk)}"
WORK=$(mktemp -d /tmp/souk-check-readiness.XXXXXX)
SERVER=""
CHECK=""
DB=""
cleanup() {
  if [ -n "$CHECK" ]; then kill "$CHECK" 2>/dev/null || true; fi
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$DB" ]; then psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "check-readiness: $*" >&2; tail -20 "$WORK/serve.log" >&2 || true; exit 1; }

export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=info
if [ -z "${SOUK_DATABASE_URL:-}" ]; then
  bench_database "souk_check_readiness_$$"
  echo "check-readiness: seeding $APPS apps…" >&2
  "$SOUK" bench seed-catalog --apps "$APPS" >&2
fi
SIZE=$(psql "$SOUK_DATABASE_URL" -Atc "SELECT count(*) FROM apps WHERE apple_item_id >= 7000000000")
[ "$SIZE" -gt 0 ] || fail "the database holds no bench apps (souk bench seed-catalog)"
python3 -c '
import json, sys
size = int(sys.argv[1])
ids = sorted({k * size // 30 for k in range(30)})
print(json.dumps({"apps": [{"appleItemId": str(7000000000 + i), "appleVersionId": str(8000000000 + i)} for i in ids],
                  "platform": "iOS", "osVersion": "18.0"}))' "$SIZE" >"$WORK/body.json"

now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
START=$(now)
"$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!

LIVE="" READY="" NOT_READY=0 READY_POLLS=0 CHECK_STARTED=""
while true; do
  kill -0 "$SERVER" 2>/dev/null || fail "souk exited"
  live=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/health" || true)
  if [ -z "$LIVE" ]; then
    [ "$live" = 000 ] && { sleep 0.05; continue; }
    LIVE=$(since "$START")
  fi
  [ "$live" = 200 ] || fail "/health answered $live at $(since "$START") s (liveness must stay 200)"
  ready=$(curl -s -D "$WORK/ready.headers" -o "$WORK/ready.body" -w '%{http_code}' "$BASE/health/ready" || true)
  case "$ready" in
    503)
      [ -z "$READY" ] || fail "/health/ready went back to 503 at $(since "$START") s after it was ready"
      grep -qi '^retry-after: [0-9]' "$WORK/ready.headers" || fail "a 503 from /health/ready without Retry-After"
      grep -qi '^content-type: application/problem+json' "$WORK/ready.headers" || fail "a 503 from /health/ready that is not problem JSON"
      NOT_READY=$((NOT_READY + 1))
      if [ -z "$CHECK_STARTED" ]; then
        # One update check during the warm-up, in the background: it waits for the catalog index.
        CHECK_STARTED=$(since "$START")
        curl -s -o "$WORK/check.body" -w '%{http_code} %{time_total}' -H 'Content-Type: application/json' \
          --data-binary @"$WORK/body.json" "$BASE/marketplace-kit/v1/updates" >"$WORK/check.result" &
        CHECK=$!
      fi
      ;;
    200)
      [ "$(cat "$WORK/ready.body")" = '{"status":"ready"}' ] || fail "/health/ready 200 with $(cat "$WORK/ready.body")"
      [ -n "$READY" ] || READY=$(since "$START")
      READY_POLLS=$((READY_POLLS + 1))
      [ "$READY_POLLS" -ge $((SETTLE * 20)) ] && break
      ;;
    *) fail "/health/ready answered $ready at $(since "$START") s" ;;
  esac
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 3000 else 1)" "$(since "$START")" || fail "not ready within 50 minutes"
  sleep 0.05
done

[ "$NOT_READY" -gt 0 ] || fail "/health/ready was 200 on the first poll: no warm-up seen (a larger APPS shows one)"
wait "$CHECK" || true
CHECK=""
read -r CHECK_STATUS CHECK_TIME <"$WORK/check.result" || true   # curl -w writes no newline
[ "$CHECK_STATUS" = 200 ] || fail "the warm-up update check answered $CHECK_STATUS: $(cat "$WORK/check.body")"
[ "$(cat "$WORK/check.body")" = '{"failures":[],"updates":[]}' ] || fail "the warm-up update check answered $(cat "$WORK/check.body")"
echo "$SIZE apps: port (/health 200) at ${LIVE} s; /health/ready 503 on $NOT_READY polls, then 200 at ${READY} s and for ${SETTLE} s after;" \
  "/health 200 on every poll; an update check sent at ${CHECK_STARTED} s answered right after ${CHECK_TIME} s"
