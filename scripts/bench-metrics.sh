#!/usr/bin/env bash
# The metrics benchmark: what the numbers of a subscription business cost at scale
# (docs/metrics.md, docs/benchmarks.md "Metrics"). On PostgreSQL it seeds PURCHASES granted
# purchases of one app (`souk bench seed-purchases`, one account per 10 purchases) with the price
# their store stated, gives the app to a developer organisation with a `metrics:read` key, then
#   1. times `souk metrics rebuild --app APP` (every day of the app's history), then the same from
#      today only (what the background job's pass does for an app with new records);
#   2. starts `souk serve` and times REQUESTS answers of `GET /api/v1/developer/metrics` (the
#      API and the consoles' pages read the same rollup rows) for a year by day, by week and by
#      month: p50, p90, p99 and the slowest, as curl measures them (connect to last byte).
#
#   scripts/bench-metrics.sh                                   # 1,000,000 purchases
#   PURCHASES=100000 REQUESTS=200 scripts/bench-metrics.sh
#   SOUK_BIN=.build-release/release/souk scripts/bench-metrics.sh   # a release build
#
# Uses SOUK_TEST_POSTGRES_URL, or starts the throwaway cluster of scripts/postgres.sh. Without
# SOUK_BIN it uses the debug build (`swift build --product souk`).
set -euo pipefail
cd "$(dirname "$0")/.."
PURCHASES="${PURCHASES:-1000000}"
REQUESTS="${REQUESTS:-300}"
PORT="${PORT:-18931}"
APP=org.example.bench.reader
if [ -z "${SOUK_BIN:-}" ]; then
  swift build --product souk >/dev/null
  SOUK_BIN="$(swift build --show-bin-path)/souk"
fi
if [ -z "${SOUK_TEST_POSTGRES_URL:-}" ]; then eval "$(scripts/postgres.sh env)"; fi
WORK=$(mktemp -d /tmp/souk-bench-metrics.XXXXXX)
DB="souk_bench_metrics_$$"
SERVER=""
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB" >/dev/null
export SOUK_DATABASE_URL="${SOUK_TEST_POSTGRES_URL%/*}/$DB" SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning
export SOUK_METRICS_ROLLUP_INTERVAL_SECONDS=0 SOUK_PUBLIC_URL="http://127.0.0.1:$PORT"
mkdir -p "$SOUK_DATA_DIR"
seconds() { python3 -c 'import sys,time; print(f"{time.monotonic()-float(sys.argv[1]):.1f}")' "$1"; }
now() { python3 -c 'import time; print(time.monotonic())'; }

"$SOUK_BIN" migrate >/dev/null
started=$(now)
"$SOUK_BIN" bench seed-purchases --app "$APP" --purchases "$PURCHASES" --tokens 1 --token-file "$WORK/tokens" >/dev/null
# The price each store stated (the seed writes purchases as Souk recorded them before prices were kept).
psql "$SOUK_DATABASE_URL" -qc "UPDATE purchases SET price_milliunits = CASE product_id WHEN 'bench.yearly' THEN 39990 ELSE 4990 END,
  currency = 'USD' WHERE app = '$APP'" -c "VACUUM ANALYZE purchases" >/dev/null
echo "seeded $PURCHASES purchases in $(seconds "$started") s"
"$SOUK_BIN" developers add --name "Bench Studio" --id bench >/dev/null
"$SOUK_BIN" catalog set-developer --app "$APP" --developer bench >/dev/null
KEY=$("$SOUK_BIN" developers keys create --developer bench --scopes metrics:read --name bench)

started=$(now)
"$SOUK_BIN" metrics rebuild --app "$APP" >"$WORK/rebuild.txt"
echo "metrics rebuild (every day): $(seconds "$started") s — $(tr -d '\n' <"$WORK/rebuild.txt")"
started=$(now)
"$SOUK_BIN" metrics rebuild --app "$APP" --from "$(date -u +%F)" >"$WORK/rebuild.txt"
echo "metrics rebuild (today, as the job's pass does): $(seconds "$started") s — $(tr -d '\n' <"$WORK/rebuild.txt")"
echo "rollup rows: $(psql "$SOUK_DATABASE_URL" -Atc "SELECT count(*) FROM metric_rollups WHERE app = '$APP'")"

"$SOUK_BIN" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 600); do
  curl -fs "http://127.0.0.1:$PORT/health/ready" >/dev/null 2>&1 && break
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.5
done
TO=$(date -u +%F)
FROM=$(date -u -d "$TO - 364 days" +%F)
for interval in day week month; do
  url="http://127.0.0.1:$PORT/api/v1/developer/metrics?app=$APP&metric=mrr&from=$FROM&to=$TO&interval=$interval"
  status=$(curl -s -o "$WORK/answer.json" -w '%{http_code}' -H "Authorization: Bearer $KEY" "$url")
  [ "$status" = 200 ] || { echo "metrics API answered $status: $(head -c 300 "$WORK/answer.json")" >&2; exit 1; }
  for _ in $(seq 1 "$REQUESTS"); do
    curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $KEY" "$url"
  done >"$WORK/times-$interval"
  python3 - "$WORK/times-$interval" "$interval" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["points"]))' "$WORK/answer.json")" <<'PY'
import sys
times = sorted(float(line) * 1000 for line in open(sys.argv[1]) if line.strip())
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
print(f"GET metrics mrr, a year by {sys.argv[2]} ({sys.argv[3]} points, {len(times)} requests): "
      f"p50 {pick(0.5):.1f} ms, p90 {pick(0.9):.1f} ms, p99 {pick(0.99):.1f} ms, max {times[-1]:.1f} ms")
PY
done
