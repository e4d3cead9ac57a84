#!/usr/bin/env bash
# End-to-end tests of `souk-device` against a real `souk serve` (SQLite, and PostgreSQL when
# SOUK_TEST_POSTGRES_URL is set): install from a link, a restore after losing tokens, an update
# after a new version is imported, a takedown seen as "App Not Available", an interrupted download
# resumed, iOS's error names, and `souk-device conform` passing against Souk and failing against a
# server that is not a marketplace. Run by scripts/test.sh after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(swift build --show-bin-path)"
SOUK="${SOUK_BIN:-$BIN/souk}"
DEVICE="$BIN/souk-device"
WORK=$(mktemp -d /tmp/souk-e2e.XXXXXX)
NAME=e2e-device
. scripts/serve-lib.sh
. scripts/device-flows.sh
DATABASES=()
trap 'cleanup; for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
export SOUK_LOG_LEVEL=warning
# The marketplace app's paid install (scripts/device-flows.sh) buys through the development
# processor, as `souk serve --demo` and the cluster's demo do.
export SOUK_PAYMENT_PROCESSOR=development
PASSWORD='e2e device password'

expect_in() { grep -q -- "$1" <<<"$2" || fail "$3: expected '$1' in: $2"; }

run_backend() {
  local backend=$1
  export SOUK_DATA_DIR="$WORK/data-$backend"
  unset SOUK_DATABASE_URL
  if [ "$backend" = postgres ]; then
    local db="souk_e2e_$$"
    DATABASES+=("$db")
    SOUK_DATABASE_URL=$(postgres_database "$db")
    export SOUK_DATABASE_URL
    "$SOUK" migrate >/dev/null
  fi
  "$SOUK" demo seed >/dev/null
  "$SOUK" accounts create --email e2e@example.com --password "$PASSWORD" >/dev/null
  START_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  export SOUK_PUBLIC_URL="http://127.0.0.1:$START_PORT"
  local base
  START_PORT=$START_PORT start base
  local state="$WORK/$backend/device" out

  # 1–5 and the conformance checklist: scripts/device-flows.sh.
  device_journey "$base" "$WORK/$backend" "$PASSWORD"

  # 6. Faults carry iOS's names.
  if out=$("$DEVICE" install --state "$state" "marketplace-kit://install?alternativeDistributionPackage=$base/packages/6446000001/8000000102/" 2>&1); then
    fail "a link without a token was installed"
  fi
  expect_in "missingInstallVerificationToken" "$out" "link without a token"
  if out=$("$DEVICE" install --os 16.0 --state "$WORK/old-device-$backend" "$(link --apple-item-id 6446000003)" 2>&1); then
    fail "an old device installed an iOS 18 app"
  fi
  expect_in "minimumPlatformVersionNotSatisfied" "$out" "old device"
  # 7. A server that is not a marketplace fails the conformance checklist.
  if out=$("$DEVICE" conform "$base/not-here" 2>&1); then fail "conform passed a server without a configuration file: $out"; fi
  expect_in "FAIL  §1" "$out" "conformance against a non-marketplace"
  echo "e2e-device: $backend OK ($base)"
}

run_backend sqlite
if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  run_backend postgres
else
  echo "e2e-device: ⚠️  SOUK_TEST_POSTGRES_URL not set: the PostgreSQL run is SKIPPED"
fi
finish
