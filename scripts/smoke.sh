#!/usr/bin/env bash
# End-to-end smoke test of the real binary: `souk serve --demo` on an empty folder (SQLite), then,
# when SOUK_TEST_POSTGRES_URL is set, two `souk serve` processes sharing one PostgreSQL database.
# Run by scripts/test.sh after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$(swift build --show-bin-path)/souk}"
WORK=$(mktemp -d /tmp/souk-smoke.XXXXXX)
NAME=smoke
. scripts/serve-lib.sh
trap cleanup EXIT

PKG=/packages/6446000001/8000000102

# 1. SQLite, the zero-configuration default, with the demo catalog.
start BASE --demo
# What a newcomer reads first is Souk's banner, not migration logs; the root is the storefront.
head -4 "$STARTED_LOG" | grep -q 'Souk is listening on' || fail "the banner is not among the first lines of a fresh serve --demo"
grep -q 'Migrator\|Starting prepare' "$STARTED_LOG" && fail "migration logs before the banner"
# --demo sells through the development processor, and the banner says so in one line.
grep -q 'payments     development processor: no money moves' "$STARTED_LOG" || fail "the demo's banner does not say that no money moves"
[ "$(status "$BASE/")" = 200 ] || fail "the storefront's home at /"
[ "$(status "$BASE/health")" = 200 ] || fail "health on SQLite"
[ "$(status "$BASE$PKG/manifest.json")" = 200 ] || fail "demo manifest"
[ "$(status "$BASE$PKG/")" = 200 ] || fail "base URL with slash"
VARIANT=$(curl -s "$BASE$PKG/manifest.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["variants"][0]["assetPath"])')
[ "$(curl -s -H 'Range: bytes=0-99' "$BASE$PKG/$VARIANT" | wc -c)" = 100 ] || fail "range request"
[ "$(status -I "$BASE$PKG/$VARIANT")" = 200 ] || fail "HEAD"
[ "$(status --path-as-is "$BASE$PKG/../../../souk.sqlite")" != 200 ] || fail "path escape"
[ "$(status "$BASE/.well-known/marketplace-kit")" = 200 ] || fail "marketplace-kit configuration"
curl -s -H 'Content-Type: application/json' \
  -d '{"apps":[{"appleItemId":"6446000001","appleVersionId":"8000000101"}],"platform":"iOS","osVersion":"17.4"}' \
  "$BASE/marketplace-kit/v1/updates" | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["updates"]) == 1' \
  || fail "updates check on the demo catalog"
LIST="$BASE/commerce/org.souk.demo.studio/products_v1.json"
curl -s "$LIST" | python3 -c 'import json,sys; ids = json.load(sys.stdin); assert ids and all(i.startswith("org.souk.demo.studio.") for i in ids), ids' \
  || fail "the demo app's products_v1.json"
ETAG=$(curl -s -D - -o /dev/null "$LIST" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
[ -n "$ETAG" ] && [ "$(status -H "If-None-Match: $ETAG" "$LIST")" = 304 ] || fail "products_v1.json conditional request"
[ "$(status "$BASE/commerce/org.souk.demo.studio/products?platform=roku")" = 200 ] || fail "the demo product feed"
python3 scripts/license-check.py "$BASE" 6446000001 8000000102 >"$WORK/license-check.log" 2>&1 || fail "license check (see license-check.log)"
echo "smoke: SQLite server OK ($BASE)"

# 1a. A fresh data folder without the marketplace's AppleItemID: the banner says how to set it.
export SOUK_DATA_DIR="$WORK/unconfigured"
start FRESH
unset SOUK_DATA_DIR
grep -q 'souk marketplace set --apple-item-id' "$STARTED_LOG" || fail "the banner does not say to set the AppleItemID"
echo "smoke: banner, / and the missing-AppleItemID hint OK"

# 1b. The same data served over HTTPS by Souk itself (--tls-cert/--tls-key).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=127.0.0.1 \
  -keyout "$WORK/tls.key" -out "$WORK/tls.crt" >/dev/null 2>&1 || fail "openssl could not make a test certificate"
start TLS_BASE --tls-cert "$WORK/tls.crt" --tls-key "$WORK/tls.key"
case "$TLS_BASE" in https://*) ;; *) fail "TLS server did not report an https URL: $TLS_BASE" ;; esac
[ "$(status --cacert "$WORK/tls.crt" "$TLS_BASE$PKG/manifest.json")" = 200 ] || fail "manifest over HTTPS"
# Without --demo and without paymentProcessor nothing is sold: a warning at start, and the paid
# demo app's page says it is not for sale yet.
grep -q 'paymentProcessor is none: 1 priced app and 1 membership plan cannot be bought' "$STARTED_LOG" \
  || fail "no warning at start that the demo's paid app and plan cannot be bought"
SKETCH_PAGE=$(curl -s --cacert "$WORK/tls.crt" "$TLS_BASE/apps/6446000004")
grep -q 'is not for sale yet' <<<"$SKETCH_PAGE" || fail "the paid demo app's page does not say it is not for sale yet"
echo "smoke: HTTPS server OK ($TLS_BASE)"

# 2. PostgreSQL: migrate, seed, two processes on one database and one data folder.
if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  DB="souk_smoke_$$"
  SOUK_DATABASE_URL=$(postgres_database "$DB")
  trap 'cleanup; psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
  export SOUK_DATABASE_URL
  export SOUK_DATA_DIR="$WORK/shared-data"
  if "$SOUK" apps list >/dev/null 2>"$WORK/unmigrated.log"; then fail "unmigrated PostgreSQL was accepted"; fi
  grep -q 'souk migrate' "$WORK/unmigrated.log" || fail "unmigrated error does not say what to do"
  "$SOUK" migrate >/dev/null
  "$SOUK" demo seed >/dev/null
  start A
  start B
  for base in "$A" "$B"; do
    [ "$(status "$base/health")" = 200 ] || fail "health on PostgreSQL ($base)"
    [ "$(status "$base$PKG/manifest.json")" = 200 ] || fail "manifest on PostgreSQL ($base)"
  done
  [ "$(curl -s "$A$PKG/manifest.json" | sha256sum)" = "$(curl -s "$B$PKG/manifest.json" | sha256sum)" ] || fail "processes disagree"
  RESTORE='{"apps": [{"appleItemId": "6446000001", "appleVersionId": "0"}], "platform": "iOS", "osVersion": "18.0"}'
  restore() { curl -s -H 'Content-Type: application/json' -d "$RESTORE" "$1/marketplace-kit/v1/restore"; }
  for base in "$A" "$B"; do
    restore "$base" | grep -q '"restores":\[{' || fail "restore on PostgreSQL ($base)"
  done
  "$SOUK" apps takedown --apple-item-id 6446000001 --reason smoke >/dev/null
  sleep 1.5   # package lookups are cached for one second, the catalog index refreshes every second
  for base in "$A" "$B"; do
    [ "$(status "$base$PKG/manifest.json")" = 404 ] || fail "takedown not seen by $base"
    restore "$base" | grep -q '"failures":\[{"appleItemId":"6446000001"' || fail "takedown not seen by restore on $base"
  done
  unset SOUK_DATABASE_URL SOUK_DATA_DIR
  echo "smoke: two PostgreSQL-backed servers OK ($A, $B)"
else
  echo "smoke: ⚠️  SOUK_TEST_POSTGRES_URL not set: the PostgreSQL multi-process smoke test is SKIPPED"
fi
finish
