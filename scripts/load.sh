#!/usr/bin/env bash
# A day's mix under load: update checks, entitlement checks, license renewals,
# purchases and storefront pages at once, on 100,000 apps, 1,000,000 accounts and 10,000,000
# installs (install-ledger rows, each with its license), for ONE `souk serve` process and for the
# CLUSTER (two processes behind nginx, scripts/cluster.sh). Per endpoint it reports throughput,
# p50, p99 and errors (non-2xx, socket errors, answers that are not what the endpoint must say),
# first at full load, then with every endpoint paced at half of that; then the CPU each part used,
# the processes' memory, table sizes, the busiest queries (pg_stat_statements) and EXPLAIN of the
# hot ones. Numbers and what they mean: docs/benchmarks.md, "Load: a day's mix".
#
#   scripts/load.sh                 # seeds from nothing (4.5–7.5 minutes, 9 GB on disk), then measures (4 minutes)
#   scripts/load.sh --reuse         # measures on the database seeded by an earlier run
#   scripts/load.sh --reuse --single-only | --cluster-only
#   scripts/load.sh --reuse --each  # also each endpoint alone on souk 1 (EACH_DURATION, 10 s): CPU per request
#   SCALE=smoke scripts/load.sh     # 2,000 apps, 20,000 accounts, 200,000 installs, 5 s runs (2 minutes): the test
#
# How it runs:
# - The database is the cluster's own PostgreSQL (scripts/cluster.sh with SOUK_CLUSTER_DIR =
#   $SOUK_LOAD_DIR/cluster; SOUK_LOAD_DIR is /tmp/souk-load, or /tmp/souk-load-smoke), started with
#   shared_buffers=1GB and pg_stat_statements; it is stopped at the end, its data kept for --reuse.
#   "Single" drives souk 1's own address (souk 2 stays up, idle); "cluster" drives nginx. Both
#   processes share the data folder (the license keys) and the database.
# - Seeding (timed, written to $SOUK_LOAD_DIR/seed.txt): `souk bench seed-catalog` (apps, one
#   version each), `souk bench seed-purchases` (TOKENS accounts with in-app purchases and access
#   tokens minted by the token store, lifetime one year), then SQL `INSERT … SELECT … FROM
#   generate_series` for the other accounts, the install ledger (`installs`) and one live license
#   per install (`licenses`), each into its table with only the primary key (scripts/load/
#   indexes-off.sql), the secondary indexes, unique constraints and foreign keys put back after it
#   (indexes-on.sql): the same schema, built in one sort per index; the two tables side by side, with
#   no WAL (wal_level=minimal); the souk processes are stopped meanwhile and started again after; then `souk apps set-price` for the apps checkouts buy (kept out of every install).
# - Requests come from files made by scripts/load/prepare.py (a sample of seeded devices, their
#   installed apps and licenses; renewal envelopes sealed like a device's) and are sent by one wrk
#   process per endpoint (scripts/load/requests.lua), all at once, on the same 2 cores as the
#   server, nginx and PostgreSQL.
# - Purchases are checkouts (`POST /api/v1/checkout`, development processor: the real purchase
#   path, no money moves); each (account, app) pair is bought once ever, so each run takes apps
#   nobody bought yet and prices more of the reserved apps when they run short.
#
# Settings (environment): SOUK_BIN (default: a release build), SOUK_LOAD_DIR, SCALE (full|smoke),
# APPS, ACCOUNTS, INSTALLS (a multiple of ACCOUNTS), TOKENS, DURATION (seconds per run: 30, smoke 5),
# MIX ("endpoint=connections …", default below), EACH_DURATION, SOUK_CLUSTER_PG_OPTIONS (added to ours).
# Needs wrk, nginx, PostgreSQL and python3-cryptography (apt-get install wrk nginx-light postgresql
# python3-cryptography); without them it is skipped with a warning, and fails under CI=true.
# Exit status 1 when any request failed (the tables are printed first).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh

REUSE=0
EACH=0
TARGETS="single cluster"
for arg in "$@"; do
  case "$arg" in
    --reuse) REUSE=1 ;;
    --each) EACH=1 ;;
    --single-only) TARGETS=single ;;
    --cluster-only) TARGETS=cluster ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "load: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

SCALE="${SCALE:-full}"
case "$SCALE" in
  full) : "${APPS:=100000}" "${ACCOUNTS:=1000000}" "${INSTALLS:=10000000}" "${TOKENS:=10000}" "${DURATION:=30}" "${SAMPLE:=20000}" ;;
  smoke) : "${APPS:=2000}" "${ACCOUNTS:=20000}" "${INSTALLS:=200000}" "${TOKENS:=500}" "${DURATION:=5}" "${SAMPLE:=2000}" ;;
  *) echo "load: SCALE is full or smoke" >&2; exit 2 ;;
esac
PER_ACCOUNT=$((INSTALLS / ACCOUNTS))
FOR_SALE=$(( APPS / 100 > 200 ? APPS / 100 : 200 ))   # the last apps of the catalog, never installed
FREE_APPS=$((APPS - FOR_SALE))
IN_APP_PURCHASES=$((TOKENS * 10))
if [ $((PER_ACCOUNT * ACCOUNTS)) != "$INSTALLS" ] || [ "$PER_ACCOUNT" -lt 1 ] || [ "$PER_ACCOUNT" -gt "$FREE_APPS" ] \
   || [ "$TOKENS" -gt 10000 ] || [ "$TOKENS" -ge "$ACCOUNTS" ]; then
  echo "load: INSTALLS must be a multiple of ACCOUNTS (at most $FREE_APPS per account), TOKENS at most 10000 and below ACCOUNTS" >&2
  exit 2
fi
EACH_DURATION="${EACH_DURATION:-$(( DURATION < 10 ? DURATION : 10 ))}"
MIX="${MIX:-entitlements=24 updates=12 renewals=4 purchases=2 home=2 list=2 app=4 search=4}"

LOAD_DIR="${SOUK_LOAD_DIR:-/tmp/souk-load$([ "$SCALE" = full ] || echo "-$SCALE")}"
mkdir -p "$LOAD_DIR"
LOAD_DIR=$(cd "$LOAD_DIR" && pwd)
export SOUK_CLUSTER_DIR="$LOAD_DIR/cluster"
export SOUK_LOG_LEVEL="${SOUK_LOG_LEVEL:-warning}"
# Checkouts go through the development processor (no money moves), chosen explicitly.
export SOUK_PAYMENT_PROCESSOR=development
# wal_level=minimal (no replica here): the seed's bulk inserts into tables truncated in the same
# transaction write no WAL (scripts/load/seed-installs.sql).
export SOUK_CLUSTER_PG_OPTIONS="-c shared_buffers=1GB -c max_wal_size=4GB -c wal_level=minimal -c max_wal_senders=0 -c shared_preload_libraries=pg_stat_statements ${SOUK_CLUSTER_PG_OPTIONS:-}"

skip() {
  if [ "${CI:-}" = true ]; then echo "load: FAIL: $* (CI must install it)" >&2; exit 1; fi
  echo "load: ⚠️  SKIPPED: $*" >&2
  exit 0
}
command -v wrk >/dev/null || skip "wrk is not installed (apt-get install wrk)"
command -v nginx >/dev/null || skip "nginx is not installed (apt-get install nginx-light)"
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || skip "PostgreSQL is not installed (apt-get install postgresql)"
python3 -c 'import cryptography' 2>/dev/null || skip "python3 cryptography is not installed (apt-get install python3-cryptography)"
[ -x scripts/cluster.sh ] || skip "scripts/cluster.sh is missing"

SOUK="${SOUK_BIN:-$(release_souk)}"
export SOUK_BIN="$SOUK"
WORK=$(mktemp -d /tmp/souk-load-run.XXXXXX)
chmod 755 "$WORK"
NAME=load
. scripts/serve-lib.sh
WRK_PIDS=()
stop_cluster() { scripts/cluster.sh stop >/dev/null 2>&1 || true; }
trap 'for p in "${WRK_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; stop_cluster; cleanup' EXIT
say() { echo "load: $*" >&2; }

# ---------------------------------------------------------------- the cluster and its database
start_cluster() {
  scripts/cluster.sh start >"$WORK/cluster.txt" 2>"$WORK/cluster.log" || { cat "$WORK/cluster.log" >&2; fail "scripts/cluster.sh start"; }
  NGINX_URL=$(awk '$1 == "nginx" {print $2}' "$WORK/cluster.txt")
  SOUK1_URL=$(awk '$1 == "souk" && $2 == "1" {print $3}' "$WORK/cluster.txt")
  SOUK2_URL=$(awk '$1 == "souk" && $2 == "2" {print $3}' "$WORK/cluster.txt")
  SOUK_DATABASE_URL=$(sed -n 's/^SOUK_DATABASE_URL=//p' "$WORK/cluster.txt")
  SOUK_DATA_DIR=$(sed -n 's/^SOUK_DATA_DIR=//p' "$WORK/cluster.txt")
  export SOUK_DATABASE_URL SOUK_DATA_DIR
  [ -n "$NGINX_URL" ] && [ -n "$SOUK1_URL" ] && [ -n "$SOUK2_URL" ] && [ -n "$SOUK_DATABASE_URL" ] || fail "unexpected scripts/cluster.sh output: $(cat "$WORK/cluster.txt")"
  PG_PORT=$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).port)' "$SOUK_DATABASE_URL")
  SOUK1_PID=$(head -1 "$SOUK_CLUSTER_DIR/run/souk-1.pid")
  SOUK2_PID=$(head -1 "$SOUK_CLUSTER_DIR/run/souk-2.pid")
  NGINX_PID=$(head -1 "$SOUK_CLUSTER_DIR/run/nginx.pid")
  PG_PID=$(head -1 "$SOUK_CLUSTER_DIR/postgres/data/postmaster.pid")
}
# psql as the application's role, and as the superuser (over the cluster's socket, trusted locally).
sql() { psql -X -q -v ON_ERROR_STOP=1 "$SOUK_DATABASE_URL" "$@"; }
superuser() { psql -X -q -v ON_ERROR_STOP=1 -h "$SOUK_CLUSTER_DIR/postgres/sockets" -p "$PG_PORT" -U postgres "$@"; }

SEEDED="apps=$APPS accounts=$ACCOUNTS installs=$INSTALLS tokens=$TOKENS"
seeded() {
  [ -s "$LOAD_DIR/seed.txt" ] && [ -s "$LOAD_DIR/tokens" ] && [ -d "$SOUK_CLUSTER_DIR/postgres/data" ] \
    && grep -qxF "sizes $SEEDED" "$LOAD_DIR/seed.txt"
}

# Seconds since $1 (a `date +%s.%N`), one decimal.
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

seed() {
  say "seeding $SEEDED from nothing in $SOUK_CLUSTER_DIR"
  stop_cluster
  rm -rf "$SOUK_CLUSTER_DIR" "$LOAD_DIR/seed.txt" "$LOAD_DIR/tokens"
  local t all
  all=$(date +%s.%N)
  start_cluster
  # The two processes wait while the database is seeded: their index refreshes (a full reload after
  # each bulk change) would take the cores the seeding needs. The cluster starts again after it.
  kill -TERM "$SOUK1_PID" "$SOUK2_PID"
  while kill -0 "$SOUK1_PID" 2>/dev/null || kill -0 "$SOUK2_PID" 2>/dev/null; do sleep 0.2; done
  local seeding
  seeding=$(date +%s.%N)
  {
    echo "sizes $SEEDED"
    t=$(date +%s.%N)
    "$SOUK" bench seed-catalog --apps "$APPS" >&2
    echo "apps and versions (souk bench seed-catalog): $(since "$t") s"
    t=$(date +%s.%N)
    # The token store mints the tokens (grant, then exchange); a year, so that --reuse keeps them.
    SOUK_ACCESS_TOKEN_SECONDS=31536000 "$SOUK" bench seed-purchases --accounts "$TOKENS" --purchases "$IN_APP_PURCHASES" \
      --tokens "$TOKENS" --token-file "$LOAD_DIR/tokens" >&2
    echo "accounts with tokens and in-app purchases (souk bench seed-purchases, $TOKENS accounts, $IN_APP_PURCHASES purchases): $(since "$t") s"
    t=$(date +%s.%N)
    sql -v n=$((ACCOUNTS - TOKENS)) -f scripts/load/seed-accounts.sql
    echo "other accounts (SQL): $(since "$t") s"
    # The two tables are independent: each is seeded and indexed in its own session, side by side
    # (two cores; each session is one PostgreSQL process, its index builds two).
    t=$(date +%s.%N)
    sql -v table=installs -f scripts/load/indexes-off.sql
    sql -v table=licenses -f scripts/load/indexes-off.sql
    local table pids=() took=()
    for table in installs licenses; do
      ( local t0
        t0=$(date +%s.%N)
        sql -v per=$PER_ACCOUNT -v free=$FREE_APPS -f "scripts/load/seed-$table.sql"
        echo "$table $(since "$t0")" >"$WORK/took-$table"
        t0=$(date +%s.%N)
        sql -v table=$table -f scripts/load/indexes-on.sql
        echo "$table-indexes $(since "$t0")" >>"$WORK/took-$table" ) &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "seeding installs or licenses failed"; done
    sql -c "DROP TABLE load_deferred"
    took=($(cat "$WORK/took-installs" "$WORK/took-licenses" | awk '{print $2}'))
    echo "installs and licenses, side by side (SQL into tables without secondary indexes and foreign keys, then those put back): $(since "$t") s"
    echo "  installs ${took[0]} s, their indexes and constraints ${took[1]} s; licenses ${took[2]} s, theirs ${took[3]} s"
    t=$(date +%s.%N)
    superuser -d souk -c "VACUUM (ANALYZE)"
    echo "VACUUM (ANALYZE): $(since "$t") s"
    echo "seeding, from the first step to the last: $(since "$seeding") s"
  } >"$WORK/seed.txt"
  start_cluster
  echo "total, with the cluster's two starts: $(since "$all") s" >>"$WORK/seed.txt"
  sql -Atc "SELECT 'rows: apps ' || (SELECT count(*) FROM apps) || ', accounts ' || (SELECT count(*) FROM accounts)
                   || ', installs ' || (SELECT count(*) FROM installs) || ', licenses ' || (SELECT count(*) FROM licenses)" >>"$WORK/seed.txt"
  mv "$WORK/seed.txt" "$LOAD_DIR/seed.txt"
  cat "$LOAD_DIR/seed.txt" >&2
}

# Apps for sale nobody bought yet; prices more of the reserved ones when fewer than $1 are left.
for_sale() {
  local need=$1 query have
  query="SELECT a.apple_item_id FROM apps a WHERE a.prices IS NOT NULL AND a.apple_item_id >= $((7000000000 + FREE_APPS))
         AND NOT EXISTS (SELECT 1 FROM marketplace_orders o WHERE o.apple_item_id = a.apple_item_id) ORDER BY a.apple_item_id"
  have=$(sql -Atc "$query" | wc -l)
  if [ "$have" -lt "$need" ]; then
    local priced=0 id
    for id in $(sql -Atc "SELECT apple_item_id FROM apps WHERE prices IS NULL AND apple_item_id >= $((7000000000 + FREE_APPS))
                          ORDER BY apple_item_id LIMIT $((need - have))"); do
      "$SOUK" apps set-price --apple-item-id "$id" --amount 299 --currency USD >/dev/null
      priced=$((priced + 1))
    done
    [ $((have + priced)) -ge "$need" ] || fail "the $FOR_SALE apps kept for sale are all bought: run without --reuse to seed again"
    sleep 1.5   # every process sees a price within a second (catalog refresh)
  fi
  sql -Atc "$query" >"$WORK/for-sale.txt"
}

# ---------------------------------------------------------------- measuring
declare -A CONNS EXPECT NEEDLE ONCE PEAK
ENDPOINTS=()
for pair in $MIX; do ENDPOINTS+=("${pair%%=*}"); CONNS[${pair%%=*}]=${pair#*=}; done
EXPECT=([updates]=200 [entitlements]=200 [renewals]=200 [purchases]=201 [home]=200 [list]=200 [app]=200 [search]=200)
NEEDLE=([updates]='"failures":[]' [entitlements]='"bench.monthly"' [renewals]='"ineligibleLicenses":[]' [purchases]='"orderId"'
        [home]='</html>' [list]='</html>' [app]='</html>' [search]='</html>')
ONCE=([purchases]=1)
declare -A LABEL=([updates]='update check `POST /marketplace-kit/v1/updates`' [entitlements]='entitlement `GET /commerce/…/entitlement/…`'
                  [renewals]='license renewal `POST /marketplace-kit/v1/license/renew`' [purchases]='purchase `POST /api/v1/checkout`'
                  [home]='storefront `/`' [list]='storefront `/apps?page=…`' [app]='storefront `/apps/<id>`' [search]='storefront `/search?q=…`')
for e in "${ENDPOINTS[@]}"; do [ -n "${EXPECT[$e]:-}" ] || { echo "load: unknown endpoint $e in MIX" >&2; exit 2; }; done

cpu_of() { local t=0 p; for p in "$@"; do [ -r "/proc/$p/stat" ] && t=$((t + $(cpu_ticks "$p"))); done; echo "$t"; }
pg_pids() { echo "$PG_PID"; ps -o pid= --ppid "$PG_PID" 2>/dev/null || true; }
nginx_pids() { echo "$NGINX_PID"; ps -o pid= --ppid "$NGINX_PID" 2>/dev/null || true; }
# CPU seconds of this shell's finished children (wrk, once waited for), from what the `times`
# builtin wrote to file $1 (it must run in this shell itself, never in a pipe or $(…)).
children_cpu() { tail -1 "$1" | python3 -c 'import re, sys; print(sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", sys.stdin.read())))'; }
machine_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
rss_mb() { awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }
hwm_mb() { awk '/VmHWM/ {printf "%d", $2 / 1024}' "/proc/$1/status"; }

# One run of the whole mix against $1 (a base URL), named $2, mode $3 (peak | paced); writes
# $WORK/out/$2-$3-<endpoint>.txt and appends one row per endpoint to $WORK/rows-$2-$3.
run_mix() {
  local url=$1 target=$2 mode=$3 e delay
  mkdir -p "$WORK/out"
  if [[ " ${ENDPOINTS[*]} " == *" purchases "* ]]; then
    for_sale $(( (2500 * DURATION) / TOKENS + 2 ))
    python3 scripts/load/prepare.py purchases "$WORK/req" "$LOAD_DIR/tokens" "$WORK/for-sale.txt" 2>/dev/null
  fi
  local souk_before pg_before nginx_before busy_before started
  souk_before=$(cpu_of "$SOUK1_PID" "$SOUK2_PID"); pg_before=$(cpu_of $(pg_pids)); nginx_before=$(cpu_of $(nginx_pids))
  busy_before=$(machine_busy); started=$(date +%s.%N); times >"$WORK/times-before"
  WRK_PIDS=()
  for e in "${ENDPOINTS[@]}"; do
    delay=0
    if [ "$mode" = paced ]; then delay=$(python3 -c "print(max(1, round(${CONNS[$e]} * 1000 / max(${PEAK[$target-$e]} / 2, 0.5))))"); fi
    LOAD_REQUESTS="$WORK/req/$e.req" LOAD_STATUS="${EXPECT[$e]}" LOAD_BODY_HAS="${NEEDLE[$e]}" LOAD_ONCE="${ONCE[$e]:-0}" \
      LOAD_DELAY_MS="$delay" wrk -t1 -c"${CONNS[$e]}" -d"${DURATION}s" --timeout 5s -s scripts/load/requests.lua "$url" \
      >"$WORK/out/$target-$mode-$e.txt" 2>&1 &
    WRK_PIDS+=($!)
  done
  local failed=0
  for p in "${WRK_PIDS[@]}"; do wait "$p" || failed=1; done
  WRK_PIDS=()
  times >"$WORK/times-after"
  [ "$failed" = 0 ] || { tail -5 "$WORK"/out/"$target-$mode"-*.txt >&2; fail "wrk failed"; }
  local hz seconds
  hz=$(getconf CLK_TCK)
  seconds=$(since "$started")
  python3 - "$hz" "$seconds" "$(( $(cpu_of "$SOUK1_PID" "$SOUK2_PID") - souk_before ))" "$(( $(cpu_of $(pg_pids)) - pg_before ))" \
    "$(( $(cpu_of $(nginx_pids)) - nginx_before ))" "$(( $(machine_busy) - busy_before ))" "$target" \
    "$(python3 -c "print($(children_cpu "$WORK/times-after") - $(children_cpu "$WORK/times-before"))")" "$(nproc)" \
    "$WORK/cpu-raw-$target-$mode" <<'PY' >"$WORK/cpu-$target-$mode"
import sys
hz, seconds = float(sys.argv[1]), float(sys.argv[2])
souk, pg, nginx, busy = (int(x) / hz for x in sys.argv[3:7])
wrk = float(sys.argv[8])
parts = [("souk", souk), ("PostgreSQL", pg)] + ([("nginx", nginx)] if sys.argv[7] == "cluster" else []) \
    + [("wrk", wrk), ("other processes on the machine", max(busy - souk - pg - nginx - wrk, 0))]
print(f"CPU over {seconds:.0f} s, in cores ({sys.argv[9]} in all): " + ", ".join(f"{name} {value / seconds:.2f}" for name, value in parts))
with open(sys.argv[10], "w") as raw:
    raw.write(f"{souk} {pg} {nginx}\n")
PY
  : >"$WORK/rows-$target-$mode"
  for e in "${ENDPOINTS[@]}"; do
    local stats
    stats=$(grep '^LOAD-STATS' "$WORK/out/$target-$mode-$e.txt" || true)
    [ -n "$stats" ] || { cat "$WORK/out/$target-$mode-$e.txt" >&2; fail "no result from wrk for $e"; }
    echo "$e ${CONNS[$e]} $delay $stats" >>"$WORK/rows-$target-$mode"
  done
}

# Prints the Markdown table of one run and records each endpoint's req/s in PEAK; counts errors.
ERRORS=0
table() {
  local target=$1 mode=$2 title e rps errors labels
  title="$target, $([ "$mode" = peak ] && echo "full load" || echo "each endpoint paced at half of its full-load rate")"
  labels=$(for e in "${!LABEL[@]}"; do printf '%s\t%s\n' "$e" "${LABEL[$e]}"; done \
    | python3 -c 'import json, sys; print(json.dumps(dict(line.rstrip("\n").split("\t", 1) for line in sys.stdin)))')
  python3 scripts/load/table.py "$title" "$WORK/rows-$target-$mode" "$(cat "$WORK/cpu-$target-$mode")" "$WORK/cpu-raw-$target-$mode" \
    "$WORK/rates-$target-$mode" "$labels"
  while read -r e rps errors; do
    if [ "$mode" = peak ]; then PEAK[$target-$e]=$rps; fi
    ERRORS=$((ERRORS + errors))
  done <"$WORK/rates-$target-$mode"
}

measure() {
  local target=$1 url
  url=$([ "$target" = single ] && echo "$SOUK1_URL" || echo "$NGINX_URL")
  say "$target ($url): full load for ${DURATION} s"
  run_mix "$url" "$target" peak
  table "$target" peak >>"$WORK/results.md"
  say "$target: each endpoint at half its full-load rate for ${DURATION} s"
  run_mix "$url" "$target" paced
  table "$target" paced >>"$WORK/results.md"
  echo >>"$WORK/results.md"
  echo "Memory after the runs: souk 1 RSS $(rss_mb "$SOUK1_PID") MB (peak $(hwm_mb "$SOUK1_PID") MB), souk 2 RSS $(rss_mb "$SOUK2_PID") MB (peak $(hwm_mb "$SOUK2_PID") MB)." >>"$WORK/results.md"
}

# Each endpoint alone on one process (--each): what one request of each kind costs, in Souk's and
# PostgreSQL's CPU, free of the others' queueing.
each() {
  local saved=("${ENDPOINTS[@]}") saved_duration=$DURATION e
  DURATION=$EACH_DURATION
  echo
  echo "**Each endpoint alone** (souk 1, same connections, $EACH_DURATION s each):"
  echo
  echo "| endpoint | connections | req/s | p50 | p99 | errors | souk CPU per request | PostgreSQL CPU per request | other processes (cores) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for e in "${saved[@]}"; do
    ENDPOINTS=("$e")
    run_mix "$SOUK1_URL" "alone" "peak-$e"
    python3 - "${LABEL[$e]}" "$WORK/rows-alone-peak-$e" "$WORK/cpu-raw-alone-peak-$e" "$WORK/cpu-alone-peak-$e" "$WORK/errors-alone-$e" <<'PY'
import re, sys
label, rows, raw, text, errors_file = sys.argv[1:6]
_, connections, _, rest = open(rows).read().strip().split(" ", 3)
v = {k: int(x) for k, x in (kv.split("=", 1) for kv in rest.partition(" sample=")[0].split()[1:])}
souk, pg, _ = (float(x) for x in open(raw).read().split())
other = re.search(r"other processes on the machine ([\d.]+)", open(text).read()).group(1)
n = max(v["requests"], 1)
errors = v["non2xx"] + v["connect"] + v["read"] + v["write"] + v["timeout"] + max(v["bad"] - v["non2xx"], 0)
print(f"| {label} | {connections} | {v['requests'] / (v['duration_us'] / 1e6):,.0f} | {v['p50_us'] / 1000:.1f} ms | {v['p99_us'] / 1000:.1f} ms | "
      f"{errors} | {souk / n * 1e6:,.0f} µs | {pg / n * 1e6:,.0f} µs | {other} |")
open(errors_file, "w").write(f"{errors}\n")
PY
    ERRORS=$((ERRORS + $(cat "$WORK/errors-alone-$e")))
  done
  ENDPOINTS=("${saved[@]}")
  DURATION=$saved_duration
}

# The database after the runs: table sizes, the busiest statements of the measured runs, and the
# plans of the queries on the two largest tables, with values from the sample.
report() {
  local db account device ids items item version
  db=$(sql -Atc "SELECT current_database()")
  echo
  echo "**Largest tables** (\`pg_total_relation_size\`; rows as estimated by ANALYZE):"
  echo
  echo "| table | rows | table | indexes | total |"
  echo "| --- | --- | --- | --- | --- |"
  sql -At -F ' | ' -c "SELECT '| ' || c.relname, to_char(c.reltuples, 'FM999,999,999,999'), pg_size_pretty(pg_relation_size(c.oid)),
                             pg_size_pretty(pg_indexes_size(c.oid)), pg_size_pretty(pg_total_relation_size(c.oid)) || ' |'
                       FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace
                       ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 8"
  echo
  echo "Indexes of the two largest: $(sql -Atc "SELECT string_agg(c.relname || ' ' || pg_size_pretty(pg_relation_size(c.oid)), ', ' ORDER BY pg_relation_size(c.oid) DESC)
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN ('licenses'::regclass, 'installs'::regclass)")."
  echo "Database $(sql -Atc "SELECT pg_size_pretty(pg_database_size(current_database()))"); shared_buffers $(sql -Atc "SHOW shared_buffers")."
  echo
  echo "**Busiest statements during the measured runs** (pg_stat_statements, by total time):"
  echo
  echo "| calls | total s | mean ms | rows/call | statement |"
  echo "| --- | --- | --- | --- | --- |"
  superuser -d postgres -At -F ' | ' -c "SELECT '| ' || calls, round((total_exec_time / 1000)::numeric, 1), round(mean_exec_time::numeric, 3),
        round(rows::numeric / greatest(calls, 1), 1),
        '\`' || left(regexp_replace(replace(query, '|', '/'), '\s+', ' ', 'g'), 150) || '\` |'
      FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '$db')
      ORDER BY total_exec_time DESC LIMIT 12"
  IFS=$'\t' read -r account device items ids < <(awk -F'\t' '$4 != "" {print; exit}' "$WORK/sample.tsv")
  ids=$(cut -d, -f1-3 <<<"$ids")
  item=${items%%,*}; version=${item#*:}; item=${item%%:*}
  echo
  echo "**Plans of the hot queries on the largest tables** (EXPLAIN ANALYZE with values from the sample; the renewal's UPDATE rolled back):"
  echo
  echo '```'
  local q
  for q in \
    "renewal: read the licenses|SELECT l.*, d.device_id FROM licenses l JOIN devices d ON d.id = l.device WHERE l.license_id IN ($ids)" \
    "renewal: new term|UPDATE licenses SET issued_at = now(), expires_at = now() + interval '720 hours', renewals = renewals + 1 WHERE license_id IN ($ids) AND revoked_at IS NULL" \
    "license: the device's live license of a version|SELECT license_id FROM licenses WHERE device = (SELECT id FROM devices WHERE device_id = '$device') AND apple_item_id = $item AND apple_version_id = $version AND expires_at > now() AND revoked_at IS NULL" \
    "license: an account's live devices (device limit)|SELECT DISTINCT d.device_id FROM licenses l JOIN devices d ON d.id = l.device WHERE l.account_id = '$account' AND l.revoked_at IS NULL AND l.expires_at > now()" \
    "install ledger: an account's installs of some apps|SELECT apple_item_id, client_id, download_type, created_at FROM installs WHERE account_id = '$account' AND apple_item_id IN ($item, 7000000001)" \
    "app page: the versions of an app|SELECT * FROM app_versions WHERE app_id = (SELECT id FROM apps WHERE apple_item_id = $item) AND withdrawn_at IS NULL ORDER BY release_date DESC" \
    "cleanup: licenses expired 30 days ago, one batch|SELECT license_id FROM licenses WHERE expires_at < now() - interval '30 days' LIMIT 1000"; do
    echo "-- ${q%%|*}"
    sql -At -c "BEGIN" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS off) ${q#*|}" -c "ROLLBACK" \
      | awk '/^(BEGIN|ROLLBACK)$/ {next} /^ *Planning:/ {planning = 1; next} planning && /Buffers:/ {planning = 0; next} {planning = 0; print "   " $0}'
  done
  echo '```'
}

# ---------------------------------------------------------------- the run
# The first update check of a process that just started (scripts/cluster.sh waits for /health/ready,
# so its catalog index is loaded by then).
FIRST_UPDATE=()
FIRST_PAGE=()
first_update_checks() {
  local url t body='{"apps":[{"appleItemId":"7000000001","appleVersionId":"8000000001"}],"platform":"iOS","osVersion":"18.0"}'
  FIRST_UPDATE=()
  for url in "$SOUK1_URL" "$SOUK2_URL"; do
    t=$(date +%s.%N)
    [ "$(status -H 'Content-Type: application/json' -d "$body" "$url/marketplace-kit/v1/updates")" = 200 ] \
      || fail "$url: the first update check did not answer 200"
    FIRST_UPDATE+=("$(since "$t") s")
  done
}
if [ "$REUSE" = 1 ] && seeded; then
  say "reusing the database seeded earlier ($LOAD_DIR/seed.txt)"
  start_cluster
  first_update_checks
else
  [ "$REUSE" = 1 ] && say "--reuse: no complete seed of these sizes in $LOAD_DIR"
  seed
fi
superuser -d postgres -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
RSS_START="souk 1 $(rss_mb "$SOUK1_PID") MB, souk 2 $(rss_mb "$SOUK2_PID") MB"

say "preparing requests from a sample of $SAMPLE seeded devices"
mkdir -p "$WORK/req"
sql -At -v sample="$SAMPLE" -v percent="$(python3 -c "print(min(100, 150 * $SAMPLE / $ACCOUNTS))")" \
  -f scripts/load/sample.sql >"$WORK/sample.tsv"
python3 scripts/load/prepare.py requests "$SOUK1_URL" "$WORK/req" "$WORK/sample.tsv" "$LOAD_DIR/tokens" "$APPS"

# Warm-up: each process loads its catalog index on the first update check and builds its
# storefront index on the first list page (seconds each at 100,000 apps), then learns every token
# and person once (held until the token expires, at most an hour); then a short mix per target.
for url in "$SOUK1_URL" "$SOUK2_URL"; do
  t=$(date +%s.%N)
  [ "$(status "$url/")" = 200 ] || fail "$url/ did not answer 200"
  FIRST_PAGE+=("$(since "$t") s")
  say "$url: first storefront page ${FIRST_PAGE[-1]} (builds the storefront index)"
done
RSS_WARM_BEFORE="souk 1 $(rss_mb "$SOUK1_PID") MB, souk 2 $(rss_mb "$SOUK2_PID") MB"
for url in "$SOUK1_URL" "$SOUK2_URL"; do
  t=$(date +%s.%N)
  python3 scripts/load/prepare.py warm "$url" "$LOAD_DIR/tokens" || fail "entitlement warm-up"
  say "first entitlement check of each of the $TOKENS people on $url: $(since "$t") s"
done
SAVED_DURATION=$DURATION
DURATION=$(( DURATION < 10 ? DURATION : 10 ))
for target in single cluster; do
  say "warm-up through $target for $DURATION s"
  run_mix "$([ "$target" = single ] && echo "$SOUK1_URL" || echo "$NGINX_URL")" "warmup-$target" peak
done
DURATION=$SAVED_DURATION
RSS_WARM="souk 1 $(rss_mb "$SOUK1_PID") MB, souk 2 $(rss_mb "$SOUK2_PID") MB"

superuser -d postgres -c "SELECT pg_stat_statements_reset()" >/dev/null
{
  echo "## Load run of $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/^Mem:/ {print $2}') GiB;"
  echo "the load generator (wrk, one process per endpoint), nginx and PostgreSQL share those cores with Souk."
  echo "Load average when the measured runs began: $(cut -d' ' -f1-3 /proc/loadavg) (anything else running shows below as \"other processes\")."
  echo "Binary: $SOUK ($(stat -c %y "$SOUK" | cut -d. -f1)). Seed: $SEEDED, in-app purchases $IN_APP_PURCHASES, $(sql -Atc "SELECT count(*) FROM apps WHERE prices IS NOT NULL") apps priced, $(sql -Atc "SELECT count(*) FROM marketplace_orders") orders so far."
  if [ "${#FIRST_UPDATE[@]}" = 2 ]; then
    first="the first update check took ${FIRST_UPDATE[0]} and ${FIRST_UPDATE[1]} after /health/ready answered"
  else
    first="the first update check was not timed (the processes followed the seeding)"
  fi
  echo "Each run lasts $DURATION s. After the processes started (souk 1, souk 2): $first; the first storefront page took ${FIRST_PAGE[0]} and ${FIRST_PAGE[1]}."
  echo "Memory: after start $RSS_START; after the first update check and storefront page $RSS_WARM_BEFORE; after the warm-up (every person once, then the mix) $RSS_WARM."
} >"$WORK/results.md"
for target in $TARGETS; do measure "$target"; done
if [ "$EACH" = 1 ]; then
  say "each endpoint alone on souk 1 for $EACH_DURATION s"
  each >>"$WORK/results.md"
fi

say "database report"
report >>"$WORK/results.md"

STAMP=$(date -u +%Y%m%dT%H%M%SZ)
cp "$WORK/results.md" "$LOAD_DIR/results-$STAMP.md"
cat "$WORK/results.md"
echo
say "results in $LOAD_DIR/results-$STAMP.md; seeding times in $LOAD_DIR/seed.txt"
stop_cluster
finish
if [ "$ERRORS" != 0 ]; then
  say "FAIL: $ERRORS requests failed (see the error columns above)"
  exit 1
fi
say "OK"
