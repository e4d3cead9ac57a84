#!/usr/bin/env bash
# Times every storefront, account and console page at scale (the goal: "every page under 50 ms
# server time at 100,000 apps and 1,000,000 purchases"). A release `souk serve` on SQLite (or
# BACKEND=postgres, through scripts/postgres.sh), seeded in bulk with `souk bench seed-catalog`
# (APPS, default 100,000, each with a category, subtitle and description) and `souk bench
# seed-purchases` (PURCHASES, default 1,000,000, over 100,000 accounts). Each page is fetched
# RUNS times (default 30) after 3 warm-up fetches, one at a time on loopback, by curl; the table
# gives median, p95 and max of curl's time_total (server time plus a loopback round trip), and
# the first-ever fetch of the storefront lists (the search index built from the whole catalog).
# Prints a Markdown table for docs/benchmarks.md. SOUK_BIN: a souk to use instead of building.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

APPS="${APPS:-100000}"
PURCHASES="${PURCHASES:-1000000}"
RUNS="${RUNS:-30}"
BACKEND="${BACKEND:-sqlite}"
SOUK="${SOUK_BIN:-$(release_souk)}"
WORK=$(mktemp -d /tmp/souk-bench-web.XXXXXX)
SERVER=""
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
  if [ "$BACKEND" = postgres ] && [ -n "${DB:-}" ]; then psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning
if [ "$BACKEND" = postgres ]; then
  bench_database "souk_bench_web_$$"
fi

echo "bench-web: seeding $APPS apps and $PURCHASES purchases ($BACKEND)…" >&2
"$SOUK" bench seed-catalog --apps "$APPS" >&2
"$SOUK" bench seed-purchases --purchases "$PURCHASES" --accounts $(( PURCHASES / 10 )) --tokens 10 --token-file "$WORK/tokens" >&2
PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')  # never a leading '-'
"$SOUK" accounts create --email operator@bench.example --password "$PASSWORD" --role operator >/dev/null
"$SOUK" accounts create --email shopper@bench.example --password "$PASSWORD" >/dev/null

PORT=$(free_port)
# The bench's operator signs in with a password only.
SOUK_CONSOLE_REQUIRES_TWO_FACTOR=false "$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
wait_healthy "$PORT"
BASE="http://127.0.0.1:$PORT"

# A website session: the sign-in form's double-submit cookie and token, then the POST.
sign_in() {
  local jar="$1" email="$2" token
  token=$(curl -s -c "$jar" "$BASE/signin" | sed -n 's/.*name="csrf_token" value="\([^"]*\)".*/\1/p' | head -1)
  curl -s -o /dev/null -b "$jar" -c "$jar" --data-urlencode "csrf_token=$token" --data-urlencode "email=$email" \
    --data-urlencode "password=$PASSWORD" "$BASE/signin"
}
sign_in "$WORK/operator.jar" operator@bench.example
sign_in "$WORK/shopper.jar" shopper@bench.example

# The first fetch of a list builds the storefront index from the whole catalog.
FIRST=$(curl -s -o /dev/null -w '%{time_total}' "$BASE/")

MIDDLE=$((7000000000 + APPS / 2))
PERSON=$(curl -s -b "$WORK/operator.jar" "$BASE/admin/people?q=bench" | sed -n 's/.*href="\/admin\/people\/\([0-9a-f-]\{36\}\)".*/\1/p' | head -1)
BENCH_CATALOG=org.example.bench.reader
PAGES=(
  "storefront|/"
  "storefront|/apps"
  "storefront|/apps?page=$(( APPS / 50 ))"
  "storefront|/categories/productivity"
  "storefront|/categories/weather?page=50"
  "storefront|/search?q=garden"
  "storefront|/search?q=bench+4242"
  "storefront|/search?q=zzzz"
  "storefront|/apps/$MIDDLE"
  "storefront|/sitemap.xml"
  "storefront|/sitemaps/1.xml"
  "storefront|/sitemaps/$(( (APPS + 9999) / 10000 )).xml"
  "storefront|/no-such-page"
  "shopper|/account"
  "operator|/admin"
  "operator|/admin/apps"
  "operator|/admin/apps?q=bench+4242"
  "operator|/admin/apps/$MIDDLE"
  "operator|/admin/catalog"
  "operator|/admin/catalog/$BENCH_CATALOG"
  "operator|/admin/catalog/$BENCH_CATALOG/products/bench.monthly"
  "operator|/admin/people?q=bench"
  "operator|/admin/people/$PERSON"
  "operator|/admin/audit"
  "operator|/admin/integrations"
  "operator|/admin/security"
)

echo
echo "| Page | Status | Median | p95 | Max |"
echo "| --- | --- | --- | --- | --- |"
for entry in "${PAGES[@]}"; do
  who="${entry%%|*}" path="${entry#*|}"
  cookie=()
  [ "$who" = storefront ] || cookie=(-b "$WORK/$who.jar")
  for _ in 1 2 3; do curl -s -o /dev/null "${cookie[@]}" "$BASE$path"; done
  status=$(curl -s -o /dev/null -w '%{http_code}' "${cookie[@]}" "$BASE$path")
  for _ in $(seq 1 "$RUNS"); do curl -s -o /dev/null -w '%{time_total}\n' "${cookie[@]}" "$BASE$path"; done >"$WORK/times"
  python3 - "$path" "$status" "$WORK/times" <<'PY'
import statistics, sys
path, status, file = sys.argv[1], sys.argv[2], sys.argv[3]
times = sorted(float(line) * 1000 for line in open(file) if line.strip())
p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
print(f"| `{path}` | {status} | {statistics.median(times):.1f} ms | {p95:.1f} ms | {times[-1]:.1f} ms |")
PY
done
echo
echo "First fetch of / (builds the storefront index of $APPS apps): $(python3 -c "print(f'{$FIRST * 1000:.0f} ms')")"
