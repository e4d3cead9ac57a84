#!/usr/bin/env bash
# An outage is never a verdict: a `souk serve` on its own throwaway PostgreSQL cluster, the cluster
# stopped under it (health, an app page and an update check must answer 503 with Retry-After, never
# 404 or 500), then started again (everything answers again without restarting Souk).
# Run by scripts/test.sh; needs Debian's postgresql (skipped loudly without it, fails under CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$(swift build --show-bin-path)/souk}"
WORK=$(mktemp -d /tmp/souk-outage.XXXXXX)
NAME=outage
. scripts/serve-lib.sh
export SOUK_TEST_PG_PORT=54339 SOUK_TEST_PG_DIR=/tmp/souk-outage-postgres
stop_pg() { scripts/postgres.sh stop; }
trap 'stop_pg; cleanup' EXIT

if ! PG_URL=$(scripts/postgres.sh start 2>"$WORK/pg.log"); then
  if [ "${CI:-}" = "true" ]; then cat "$WORK/pg.log" >&2; fail "no PostgreSQL in CI"; fi
  echo "outage: ⚠️  no PostgreSQL (apt-get install postgresql): the outage check is SKIPPED" >&2
  exit 0
fi
export SOUK_DATABASE_URL="$PG_URL" SOUK_DATA_DIR="$WORK/data"
psql "$PG_URL" -qc "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null
"$SOUK" migrate >/dev/null
"$SOUK" demo seed >/dev/null
start BASE
UPDATES='{"apps":[{"appleItemId":"6446000001","appleVersionId":"8000000101"}],"platform":"iOS","osVersion":"17.4"}'
updates() { curl -s -o "$WORK/updates.out" -D "$WORK/updates.head" -w '%{http_code}' -H 'Content-Type: application/json' -d "$UPDATES" "$BASE/marketplace-kit/v1/updates"; }
page() { curl -s -o /dev/null -D "$WORK/page.head" -w '%{http_code}' "$BASE/apps/6446000001"; }
[ "$(status "$BASE/health")" = 200 ] || fail "health before the outage"
[ "$(page)" = 200 ] || fail "app page before the outage"
[ "$(updates)" = 200 ] || fail "update check before the outage"

stop_pg
sleep 1.5   # past the one-second caches
[ "$(status "$BASE/health")" = 503 ] || fail "health during the outage is not 503"
code=$(page); [ "$code" = 503 ] || fail "app page during the outage answered $code, not 503"
grep -qi '^retry-after:' "$WORK/page.head" || fail "app page 503 without Retry-After"
# An anonymous update check with nothing new needs no database: the catalog index and the
# marketplace identity are in memory, so it is answered as usual.
CURRENT='{"apps":[{"appleItemId":"6446000001","appleVersionId":"8000000102"}],"platform":"iOS","osVersion":"17.4"}'
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d "$CURRENT" "$BASE/marketplace-kit/v1/updates")
[ "$code" = 200 ] || fail "an update check with nothing new answered $code during the outage, not 200 from memory"
# One that is offered an update signs its token with the keys read last: answered too.
code=$(updates); [ "$code" = 200 ] || fail "an update check with an update answered $code during the outage, not 200"
grep -q '"installVerificationToken"' "$WORK/updates.out" || fail "the update offered during the outage has no token"
# One that names an account app needs the token check, which needs the database: 503, not 500.
ACCOUNT_UPDATES='{"apps":[{"appleItemId":"6446000003","appleVersionId":"0"}],"platform":"iOS","osVersion":"17.4"}'
code=$(curl -s -o /dev/null -D "$WORK/account.head" -w '%{http_code}' -H 'Content-Type: application/json' \
  -H 'Authorization: Bearer sat_anything' -d "$ACCOUNT_UPDATES" "$BASE/marketplace-kit/v1/updates")
[ "$code" = 503 ] || fail "an update check with a bearer token during the outage answered $code, not 503"
grep -qi '^retry-after:' "$WORK/account.head" || fail "update check 503 without Retry-After"
echo "outage: during the outage health 503, app page 503 + Retry-After, update checks 200 from memory, a token to check 503"

scripts/postgres.sh start >/dev/null
for _ in $(seq 1 50); do [ "$(status "$BASE/health")" = 200 ] && break; sleep 0.2; done
[ "$(status "$BASE/health")" = 200 ] || fail "health did not recover"
[ "$(page)" = 200 ] || fail "app page did not recover"
[ "$(updates)" = 200 ] || fail "update check did not recover"
echo "outage: recovered without a restart ($BASE)"
# The cluster was started by this run, so it carries its mark: stop it before the leftover check.
stop_pg
finish
