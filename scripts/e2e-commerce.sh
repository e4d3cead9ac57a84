#!/usr/bin/env bash
# In-app commerce checked from outside (scripts/commerce-check.py) against the real binary: on
# SQLite, then, when SOUK_TEST_POSTGRES_URL is set, on PostgreSQL with two `souk serve` processes
# sharing the database (a purchase on one is an entitlement on the other). The Apple-shaped
# signing chain is made in Python and trusted through SOUK_APPLE_ROOT_CERTIFICATES.
# Run by scripts/test.sh after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$(swift build --show-bin-path)/souk}"
WORK=$(mktemp -d /tmp/souk-e2e-commerce.XXXXXX)
NAME=e2e-commerce
. scripts/serve-lib.sh
DATABASES=()
trap 'cleanup; for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
export SOUK_LOG_LEVEL=warning

if ! python3 -c 'import cryptography' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 cryptography is missing (.ci/run installs it)"
  echo "$NAME: ⚠️  SKIPPED: python3 cryptography is not installed (pip install cryptography)" >&2
  exit 0
fi

python3 scripts/commerce-check.py prepare "$WORK/chain"
export SOUK_APPLE_ROOT_CERTIFICATES="$WORK/chain/root.der"

# 1. SQLite, one process.
export SOUK_DATA_DIR="$WORK/data-sqlite"
start BASE
python3 scripts/commerce-check.py check "$BASE" "$WORK/check-sqlite" "$SOUK" >"$WORK/check-sqlite.log" 2>&1 \
  || { cat "$WORK/check-sqlite.log" >&2; fail "commerce check on SQLite"; }
cat "$WORK/check-sqlite.log"
stop_started

# 2. PostgreSQL, two processes on one database.
if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  DB="souk_commerce_$$"
  DATABASES+=("$DB")
  SOUK_DATABASE_URL=$(postgres_database "$DB")
  export SOUK_DATABASE_URL SOUK_DATA_DIR="$WORK/data-postgres"
  "$SOUK" migrate >/dev/null
  start A
  start B
  python3 scripts/commerce-check.py check "$A" "$WORK/check-postgres" "$SOUK" "$B" >"$WORK/check-postgres.log" 2>&1 \
    || { cat "$WORK/check-postgres.log" >&2; fail "commerce check on PostgreSQL"; }
  cat "$WORK/check-postgres.log"
  unset SOUK_DATABASE_URL
else
  [ "${CI:-}" = true ] && fail "SOUK_TEST_POSTGRES_URL is not set in CI"
  echo "$NAME: ⚠️  PostgreSQL part SKIPPED (no SOUK_TEST_POSTGRES_URL)" >&2
fi
finish
echo "$NAME: OK"
