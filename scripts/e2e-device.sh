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
DATABASES=()
trap 'cleanup; for db in "${DATABASES[@]}"; do psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
export SOUK_LOG_LEVEL=warning
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
  local state="$WORK/device-$backend" out
  link() { "$SOUK" links install --account e2e@example.com "$@" | grep -o 'marketplace-kit://[^ ]*' | head -1; }

  # 1. Install a public app from a link minted by `souk links install`.
  out=$("$DEVICE" install --state "$state" "$(link --apple-item-id 6446000002)" 2>&1) || fail "install: $out"
  expect_in "installed 6446000002" "$out" "install from a link"
  expect_in "Install verification token OK" "$out" "token verified"
  # dtype (spec §4): the account's first install of the app is a download, on the link's token and on restore's.
  grep -qx "dtype download" <<<"$out" || fail "first install: expected 'dtype download' (restore's token) in: $out"
  grep -qx "link dtype download" <<<"$out" || fail "first install: expected 'link dtype download' in: $out"
  # Another device of the same account installs it again: a redownload, on both tokens.
  out=$("$DEVICE" install --state "$WORK/second-device-$backend" "$(link --apple-item-id 6446000002)" 2>&1) || fail "second install: $out"
  grep -qx "dtype redownload" <<<"$out" || fail "second device: expected 'dtype redownload' (restore's token) in: $out"
  grep -qx "link dtype redownload" <<<"$out" || fail "second device: expected 'link dtype redownload' in: $out"

  # Spec §0 to the letter: token exchange → license → restore → download, seen in the device's own HTTP log.
  local order
  out=$("$DEVICE" install --verbose --state "$WORK/order-device-$backend" "$(link --apple-item-id 6446000001)" 2>&1) || fail "verbose install: $out"
  order=$(grep -oE '→ POST [^ ]*/(oauth/token|license|restore)|→ GET [^ ]*/variant/' <<<"$out" \
    | sed -E 's#.*/(oauth/token|license|restore|variant/)$#\1#' | tr '\n' ' ')
  [ "$order" = "oauth/token license restore variant/ " ] || fail "install order: expected exchange, license, restore, download; got: $order"

  # 2. An app that needs an account (iOS 18), then a restore without tokens: 401, sign in again, retry.
  out=$("$DEVICE" install --os 18.1 --state "$state" "$(link --apple-item-id 6446000003)" 2>&1) || fail "install of an account app: $out"
  if out=$("$DEVICE" restore --forget-tokens --state "$state" 2>&1); then fail "restore without credentials succeeded: $out"; fi
  expect_in "oauthTokenError" "$out" "restore without credentials"
  out=$("$DEVICE" restore --forget-tokens --email e2e@example.com --password "$PASSWORD" --state "$state" 2>&1) || fail "restore: $out"
  expect_in "Verification Required" "$out" "restore saw the 401"
  expect_in "restored 6446000003" "$out" "restore after signing in again"

  # 3. A new version is imported: the update check installs it; a second check is skipped (pollingInterval).
  "$SOUK" packages make-sample --apple-item-id 6446000002 --apple-version-id 8000000299 --bundle-id org.souk.demo.weather \
    --short-version 9.9 --bundle-version 99 --min-os 17.0 --variant-size 300000 --out "$WORK/update-$backend" >/dev/null
  "$SOUK" packages import "$WORK/update-$backend" >/dev/null
  sleep 1.5  # every process sees catalog changes within a second
  out=$("$DEVICE" updates --os 18.1 --state "$state" 2>&1) || fail "updates: $out"
  expect_in "updated 6446000002 to 8000000299 9.9" "$out" "update after an import"
  out=$("$DEVICE" updates --os 18.1 --state "$state" 2>&1) || fail "second updates: $out"
  expect_in "Skipped" "$out" "polling interval honoured"

  # 4. A takedown: "App Not Available", and the license renewal refuses it.
  "$SOUK" apps takedown --apple-item-id 6446000002 --reason e2e >/dev/null
  sleep 1.5
  out=$("$DEVICE" updates --force --os 18.1 --state "$state" 2>&1) || fail "updates after takedown: $out"
  expect_in "App Not Available: 6446000002" "$out" "takedown seen"
  out=$("$DEVICE" licenses renew --all --state "$state" 2>&1) || fail "renew: $out"
  expect_in "will stop launching" "$out" "ineligible license after takedown"

  # 5. An interrupted download: half the variant already on disk is resumed with Range and verified.
  local manifest half variant_path public_id
  manifest=$(curl -s "$base/packages/6446000001/8000000102/manifest.json")
  read -r variant_path public_id half < <(python3 -c '
import json, sys
m = json.loads(sys.argv[1])
v = next(v for v in m["variants"] if any(t["device"] == "iphone" for t in v["installTargets"]))
print(v["assetPath"], v["publicId"], v["variantDetails"]["compressedSize"] // 2)' "$manifest")
  mkdir -p "$state/downloads"
  curl -s -r "0-$((half - 1))" -o "$state/downloads/$public_id.part" "$base/packages/6446000001/8000000102/$variant_path"
  out=$("$DEVICE" install --verbose --state "$state" "$(link --apple-item-id 6446000001)" 2>&1) || fail "resumed install: $out"
  expect_in "Range: bytes=$half-" "$out" "download resumed with Range"
  expect_in "installed 6446000001" "$out" "resumed install completed"

  # 6. Faults carry iOS's names.
  if out=$("$DEVICE" install --state "$state" "marketplace-kit://install?alternativeDistributionPackage=$base/packages/6446000001/8000000102/" 2>&1); then
    fail "a link without a token was installed"
  fi
  expect_in "missingInstallVerificationToken" "$out" "link without a token"
  if out=$("$DEVICE" install --os 16.0 --state "$WORK/old-device-$backend" "$(link --apple-item-id 6446000003)" 2>&1); then
    fail "an old device installed an iOS 18 app"
  fi
  expect_in "minimumPlatformVersionNotSatisfied" "$out" "old device"
  # 7. The conformance checklist: a fresh account and the demo apps pass; a server that is not a marketplace fails.
  "$SOUK" apps reinstate --apple-item-id 6446000002 >/dev/null
  sleep 1.5
  out=$("$DEVICE" conform --strict "$base" --public-app 6446000002 --gated-app 6446000003 --email e2e@example.com --password "$PASSWORD" 2>&1) \
    || fail "conform: $out"
  expect_in "0 failed, 0 skipped" "$out" "conformance against souk"
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
