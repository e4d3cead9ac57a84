#!/usr/bin/env bash
# The marketplace sells, checked from outside (Tests/selling-e2e/selling_check.py) against
# the real binary, with Stripe's base URL pointing at Tests/selling-e2e/fakestripe.py: 402s on
# license/restore/updates, checkout through Stripe (outage, failed and paid payments, signed,
# replayed and forged webhooks, refunds) and the development processor, a membership through
# Stripe and on the sandbox's compressed clock (12 renewals, then it stops), hosted content
# downloaded with an interruption. On SQLite; then, when SOUK_TEST_POSTGRES_URL is set, on PostgreSQL.
# Run by scripts/test.sh after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${SOUK_BIN_DIR:-$(swift build --show-bin-path)}"
SOUK="$BIN/souk"
DEVICE="$BIN/souk-device"
WORK=$(mktemp -d /tmp/souk-e2e-selling.XXXXXX)
NAME=e2e-selling
. scripts/serve-lib.sh
DATABASES=()
trap 'cleanup; for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
export SOUK_LOG_LEVEL=warning

if ! python3 -c 'import cryptography' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 cryptography is missing (.ci/run installs it)"
  echo "$NAME: ⚠️  SKIPPED: python3 cryptography is not installed (pip install cryptography)" >&2
  exit 0
fi

python3 Tests/selling-e2e/selling_check.py prepare "$WORK/files"
export SOUK_APPLE_ROOT_CERTIFICATES="$WORK/files/chain/root.der"
SECRETS="$WORK/files/secrets.json"
secret() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$SECRETS" "$1"; }

python3 Tests/selling-e2e/fakestripe.py "$WORK/stripe.port" "$SECRETS" >"$WORK/stripe.log" 2>&1 &
track $!
for _ in $(seq 1 50); do [ -s "$WORK/stripe.port" ] && break; sleep 0.1; done
[ -s "$WORK/stripe.port" ] || fail "the fake Stripe did not start"
STRIPE="http://127.0.0.1:$(cat "$WORK/stripe.port")"
export SOUK_PAYMENT_PROCESSOR=stripe SOUK_STRIPE_BASE_URL="$STRIPE"
SOUK_STRIPE_SECRET_KEY=$(secret stripe_key)
SOUK_STRIPE_WEBHOOK_SECRET=$(secret webhook_secret)
export SOUK_STRIPE_SECRET_KEY SOUK_STRIPE_WEBHOOK_SECRET SOUK_STORE_RETRY_BASE_MS=50 SOUK_STORE_RETRY_MAX_MS=300

run_backend() {  # sqlite | postgres
  export SOUK_DATA_DIR="$WORK/data-$1"
  unset SOUK_DATABASE_URL
  if [ "$1" = postgres ]; then
    local db="souk_selling_$$"
    DATABASES+=("$db")
    SOUK_DATABASE_URL=$(postgres_database "$db")
    export SOUK_DATABASE_URL
    "$SOUK" migrate >/dev/null
  fi
  "$SOUK" demo seed >/dev/null
  START_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export SOUK_PUBLIC_URL="http://127.0.0.1:$START_PORT"
  local base
  START_PORT=$START_PORT start base
  cp -r "$WORK/files" "$WORK/run-$1"
  python3 Tests/selling-e2e/selling_check.py check "$base" "$WORK/run-$1" "$SOUK" "$DEVICE" "$STRIPE" >"$WORK/check-$1.log" 2>&1 \
    || { cat "$WORK/check-$1.log" >&2; fail "selling check on $1"; }
  cat "$WORK/check-$1.log"
  # No secret reaches the logs.
  for value in "$SOUK_STRIPE_SECRET_KEY" "$SOUK_STRIPE_WEBHOOK_SECRET"; do
    ! grep -qF -- "$value" "$STARTED_LOG" "$WORK/check-$1.log" || fail "a Stripe secret is in a log"
  done
  stop_started_server "$1"
}

# Stops the server (the fake Stripe keeps running for the next backend).
stop_started_server() {
  local pid
  pid=$(tail -1 "$WORK/.pids")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 75); do running "$pid" || break; sleep 0.2; done
  running "$pid" && fail "the server on $1 did not stop within 15 s"
  sed -i '$d' "$WORK/.pids"
}

run_backend sqlite
if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  run_backend postgres
else
  [ "${CI:-}" = true ] && fail "SOUK_TEST_POSTGRES_URL is not set in CI"
  echo "$NAME: ⚠️  PostgreSQL part SKIPPED (no SOUK_TEST_POSTGRES_URL)" >&2
fi
finish
echo "$NAME: OK"
