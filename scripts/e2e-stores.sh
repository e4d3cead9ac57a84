#!/usr/bin/env bash
# Every store, every change, checked from outside (Tests/stores-e2e/stores_check.py) against the real
# binary, with the stores' base URLs pointing at Tests/stores-e2e/fakestores.py: Amazon, Roku and
# Google purchases, an outage during intake, RTDN, Apple notifications, Amazon SNS and Roku push
# notifications, webhooks, the customer endpoint. On SQLite; then, when SOUK_TEST_POSTGRES_URL is set, on PostgreSQL.
# Run by scripts/test.sh after `swift build`, after scripts/e2e-commerce.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$(swift build --show-bin-path)/souk}"
WORK=$(mktemp -d /tmp/souk-e2e-stores.XXXXXX)
NAME=e2e-stores
. scripts/serve-lib.sh
DATABASES=()
trap 'cleanup; for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
export SOUK_LOG_LEVEL=warning

if ! python3 -c 'import cryptography' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 cryptography is missing (.ci/run installs it)"
  echo "$NAME: ⚠️  SKIPPED: python3 cryptography is not installed (pip install cryptography)" >&2
  exit 0
fi

python3 Tests/stores-e2e/stores_check.py prepare "$WORK/keys"
export SOUK_APPLE_ROOT_CERTIFICATES="$WORK/keys/chain/root.der"
export SOUK_E2E_ROKU_KEY
SOUK_E2E_ROKU_KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["roku"])' "$WORK/keys/secrets.json")

python3 Tests/stores-e2e/fakestores.py "$WORK/fakes.port" "$WORK/keys/google-public.pem" "$WORK/keys/secrets.json" >"$WORK/fakes.log" 2>&1 &
track $!
for _ in $(seq 1 50); do [ -s "$WORK/fakes.port" ] && break; sleep 0.1; done
[ -s "$WORK/fakes.port" ] || fail "the fake stores did not start"
FAKES="http://127.0.0.1:$(cat "$WORK/fakes.port")"
export SOUK_GOOGLE_PLAY_BASE_URL="$FAKES" SOUK_GOOGLE_OAUTH_TOKEN_URL="$FAKES/token" SOUK_AMAZON_RVS_BASE_URL="$FAKES" \
  SOUK_AMAZON_RVS_SANDBOX_BASE_URL="$FAKES" SOUK_ROKU_BASE_URL="$FAKES" \
  SOUK_STORE_RETRY_BASE_MS=50 SOUK_STORE_RETRY_MAX_MS=300 SOUK_WEBHOOK_RETRY_BASE_MS=200 SOUK_WEBHOOK_RETRY_MAX_MS=1000 \
  SOUK_RECONCILE_INTERVAL_SECONDS=1 SOUK_STORE_INTAKE_WAIT_MS=1500
# The fake SNS serves its signing certificate and SubscribeURL on 127.0.0.1 (the default allows only Amazon's hosts).
export SOUK_AMAZON_SNS_CERT_URL_PATTERN='^http://127\.0\.0\.1:[0-9]+/'

run_check() {  # label, base
  python3 Tests/stores-e2e/stores_check.py check "$2" "$WORK/keys" "$SOUK" "$FAKES" >"$WORK/check-$1.log" 2>&1 \
    || { cat "$WORK/check-$1.log" >&2; fail "stores check on $1"; }
  cat "$WORK/check-$1.log"
}

# 1. SQLite.
export SOUK_DATA_DIR="$WORK/data-sqlite"
start BASE
run_check sqlite "$BASE"
stop_started

# 2. PostgreSQL.
if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  rm -f "$WORK/fakes.port"
  python3 Tests/stores-e2e/fakestores.py "$WORK/fakes.port" "$WORK/keys/google-public.pem" "$WORK/keys/secrets.json" >"$WORK/fakes.log" 2>&1 &
  track $!
  for _ in $(seq 1 50); do [ -s "$WORK/fakes.port" ] && break; sleep 0.1; done
  FAKES="http://127.0.0.1:$(cat "$WORK/fakes.port")"
  export SOUK_GOOGLE_PLAY_BASE_URL="$FAKES" SOUK_GOOGLE_OAUTH_TOKEN_URL="$FAKES/token" SOUK_AMAZON_RVS_BASE_URL="$FAKES" \
    SOUK_AMAZON_RVS_SANDBOX_BASE_URL="$FAKES" SOUK_ROKU_BASE_URL="$FAKES"
  DB="souk_stores_$$"
  DATABASES+=("$DB")
  SOUK_DATABASE_URL=$(postgres_database "$DB")
  export SOUK_DATABASE_URL SOUK_DATA_DIR="$WORK/data-postgres"
  "$SOUK" migrate >/dev/null
  start A
  run_check postgres "$A"
  unset SOUK_DATABASE_URL
else
  [ "${CI:-}" = true ] && fail "SOUK_TEST_POSTGRES_URL is not set in CI"
  echo "$NAME: ⚠️  PostgreSQL part SKIPPED (no SOUK_TEST_POSTGRES_URL)" >&2
fi
finish
echo "$NAME: OK"
