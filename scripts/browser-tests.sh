#!/usr/bin/env bash
# Real-browser tests (Tests/browser: pytest + selenium): headless Chromium on every web page, and
# WebKit (WebKitGTK's MiniBrowser under Xvfb) on the device sign-in flows. Builds nothing: it runs
# the `souk` that scripts/test.sh built (.build/debug/souk, or SOUK_BIN), two `souk serve --demo`
# on free ports (one with sign-up open) against the store fakes (souk-store-fakes for Apple,
# Tests/stores-e2e/fakestores.py for Google), then pytest. Screenshots go to
# ${SOUK_TEST_OUTPUT:-./test-output}/browser/. A browser that is not installed is skipped with a
# warning; with CI=true it fails. Extra arguments go to pytest (e.g. -k one_tap).
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$PWD/.build/debug/souk}"
PYTHON="${PYTHON:-python3}"
OUTPUT="${SOUK_TEST_OUTPUT:-$PWD/test-output}/browser"
IN_CI=$([[ "${CI:-}" =~ ^(1|true|yes)$ ]] && echo 1 || true)

unavailable() {
  if [ -n "$IN_CI" ]; then echo "browser-tests: FAIL: CI=true but $*" >&2; exit 1; fi
  echo "browser-tests: ⚠️  $* — the browser tests are SKIPPED" >&2
  exit 0
}
[ -x "$SOUK" ] || { echo "browser-tests: FAIL: no $SOUK; build first (scripts/test.sh, or swift build)" >&2; exit 1; }
"$PYTHON" -c 'import selenium, pytest' 2>/dev/null || unavailable "Python's selenium and pytest are not installed (pip install selenium pytest)"
for tool in "${SOUK_CHROMIUM:-/usr/bin/chromium}" "${SOUK_CHROMEDRIVER:-/usr/bin/chromedriver}"; do
  [ -x "$tool" ] || unavailable "$tool is not installed (apt-get install chromium chromium-driver)"
done
RUNNER=()
if [ -z "${DISPLAY:-}" ]; then
  if command -v xvfb-run >/dev/null; then
    RUNNER=(xvfb-run -a -s "-screen 0 1280x1024x24")
  else
    [ -n "$IN_CI" ] || echo "browser-tests: ⚠️  no xvfb-run (apt-get install xvfb): the WebKit tests will be SKIPPED" >&2
  fi
fi
[ -x "${SOUK_WEBKIT_DRIVER:-/usr/bin/WebKitWebDriver}" ] || [ -n "$IN_CI" ] \
  || echo "browser-tests: ⚠️  no WebKitWebDriver (apt-get install webkit2gtk-driver): the WebKit tests will be SKIPPED" >&2

WORK=$(mktemp -d /tmp/souk-browser.XXXXXX)
NAME=browser-tests
. scripts/serve-lib.sh
trap cleanup EXIT
export SOUK_LOG_LEVEL=warning PYTHONDONTWRITEBYTECODE=1

# The store fakes the Swift and end-to-end tests use, for the console's store forms (test_console_stores.py):
# the Swift tests' App Store Server API fake as a process (souk-store-fakes) and Google Play in
# Tests/stores-e2e/fakestores.py. Both servers talk to them; only the first has the app that uses them.
STORES_APP=org.souk.browser.stores
STORE_FAKES="${SOUK_STORE_FAKES_BIN:-$(dirname "$SOUK")/souk-store-fakes}"
[ -x "$STORE_FAKES" ] || { echo "browser-tests: FAIL: no $STORE_FAKES; build first (swift build)" >&2; exit 1; }
"$PYTHON" -c 'import cryptography' 2>/dev/null || unavailable "Python's cryptography is not installed (pip install cryptography)"
"$STORE_FAKES" "$WORK/apple" "$STORES_APP" >"$WORK/apple-fake.log" 2>&1 &
APPLE_FAKE_PID=$!
track "$APPLE_FAKE_PID"
for _ in $(seq 1 100); do [ -s "$WORK/apple/apple.json" ] && break; sleep 0.1; done
[ -s "$WORK/apple/apple.json" ] || fail "the App Store Server API fake did not start"
"$PYTHON" Tests/browser/stores_setup.py prepare "$WORK/stores" "$WORK/apple" "$STORES_APP" || fail "preparing the stores"
"$PYTHON" Tests/stores-e2e/fakestores.py "$WORK/fakes.port" "$WORK/stores/google-public.pem" "$WORK/stores/secrets.json" >"$WORK/fakes.log" 2>&1 &
track $!
for _ in $(seq 1 50); do [ -s "$WORK/fakes.port" ] && break; sleep 0.1; done
[ -s "$WORK/fakes.port" ] || fail "the fake stores did not start"
GOOGLE_FAKE="http://127.0.0.1:$(cat "$WORK/fakes.port")"
APPLE_FAKE=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseURL"])' "$WORK/apple/apple.json")
export SOUK_APPLE_ROOT_CERTIFICATES="$WORK/apple/apple-root.der" SOUK_APP_STORE_SERVER_API_BASE_URL="$APPLE_FAKE" \
  SOUK_GOOGLE_PLAY_BASE_URL="$GOOGLE_FAKE" SOUK_GOOGLE_OAUTH_TOKEN_URL="$GOOGLE_FAKE/token" \
  SOUK_STORE_RETRY_BASE_MS=50 SOUK_STORE_RETRY_MAX_MS=300

start BASE --demo
PASSWORD=$(sed -n 's/.*demo account .*password \([^ ]*\) .*/\1/p' "$STARTED_LOG" | head -1)
[ -n "$PASSWORD" ] || fail "the demo password is not in the start-up banner"
# A second account for the wrong-password test, so that its failures never slow the demo account down.
# Hex: a token_urlsafe password may start with '-', which the argument parser takes for an option (a CI run failed so).
RETRY_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
(cd "$WORK" && "$SOUK" accounts create --email retry@souk.example --password "$RETRY_PASSWORD" >/dev/null) \
  || fail "souk accounts create"
# A support account that makes a reset link for a customer of its own (test_password_reset.py).
SUPPORT_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
RESET_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
(cd "$WORK" && "$SOUK" accounts create --email helpdesk@souk.example --password "$SUPPORT_PASSWORD" --role support >/dev/null \
  && "$SOUK" accounts create --email forgetful@souk.example --password "$RESET_PASSWORD" >/dev/null) \
  || fail "souk accounts create (support and reset accounts)"
# A registered TV client for the device authorization grant (test_device_activation.py).
TV_CLIENT=$(cd "$WORK" && "$SOUK" clients add --name "Browser TV" --kind tv) || fail "souk clients add"
# The demo's console operator for the console's walk, and a package (a zip, as a browser uploads it) of an app it adds.
OPERATOR_PASSWORD=$(sed -n 's/.*demo console .*password \([^ ]*\) .*/\1/p' "$STARTED_LOG" | head -1)
[ -n "$OPERATOR_PASSWORD" ] || fail "the demo operator's password is not in the start-up banner"
"$SOUK" packages make-sample --apple-item-id 6446000777 --apple-version-id 8000000777 --bundle-id org.souk.browser.console \
  --short-version 3.1 --bundle-version 31 --min-os 17.0 --variant-size 200000 --out "$WORK/console-package" >/dev/null \
  || fail "souk packages make-sample"
python3 - "$WORK/console-package" "$WORK/console-package.zip" <<'PY' || fail "zipping the sample package"
import os, sys, zipfile
root, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            archive.write(path, os.path.relpath(path, root))
PY
# The stores' app, an operator of its own (test_console_stores.py turns its two-factor sign-in on) and a customer.
STORES_OPERATOR_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
STORES_CUSTOMER_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
(cd "$WORK" && "$SOUK" catalog apply "$WORK/stores/catalog.json" >/dev/null \
  && "$SOUK" accounts create --email stores-operator@souk.example --password "$STORES_OPERATOR_PASSWORD" --role operator >/dev/null \
  && "$SOUK" accounts create --email subscriber@souk.example --password "$STORES_CUSTOMER_PASSWORD" >/dev/null) \
  || fail "souk catalog apply and accounts create (the stores' app)"
# `serve --demo` lets its operator into the console with a password only, and says so.
grep -q "the console does not require two-factor sign-in" "$STARTED_LOG" || fail "the --demo banner does not say two-factor sign-in is off"
# The second server requires two-factor sign-in for the console after all (test_console_two_factor.py).
SOUK_DATA_DIR="$WORK/sign-up-data" SOUK_SIGN_UP=true SOUK_CONSOLE_REQUIRES_TWO_FACTOR=true start SIGNUP_BASE --demo
SIGNUP_OPERATOR_PASSWORD=$(sed -n 's/.*demo console .*password \([^ ]*\) .*/\1/p' "$STARTED_LOG" | head -1)
[ -n "$SIGNUP_OPERATOR_PASSWORD" ] || fail "the second demo operator's password is not in the start-up banner"
! grep -q "the console does not require two-factor sign-in" "$STARTED_LOG" || fail "the banner says two-factor sign-in is off, but it was asked for"
# A developer's day on the second server (two-factor sign-in required there): its organisation, owner,
# paid app (1.1 released by the operator; 1.2 is the package the developer uploads), in-app catalog, an
# operator who reviews and a customer who buys, all with the real commands (test_developer_console.py).
DEVELOPER_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
REVIEW_OPERATOR_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
BUYER_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(12))')
DEVELOPER_APP=org.souk.browser.developer
for version in 7 8; do
  "$SOUK" packages make-sample --apple-item-id 6446000888 --apple-version-id 800000088$version --bundle-id "$DEVELOPER_APP" \
    --short-version 1.$((version - 6)) --bundle-version 1$((version - 6)) --min-os $([ $version = 7 ] && echo 17.0 || echo 17.4) \
    --variant-size 100000 --out "$WORK/developer-package-$version" >/dev/null || fail "souk packages make-sample (developer)"
done
(cd "$WORK/developer-package-8" && python3 -m zipfile -c "$WORK/developer-package.zip" *) || fail "zipping the developer's package"
"$PYTHON" Tests/browser/developer_setup.py catalog "$WORK/developer-catalog.json" "$DEVELOPER_APP" || fail "the developer's catalog file"
(cd "$WORK" && export SOUK_DATA_DIR="$WORK/sign-up-data" \
  && "$SOUK" accounts create --email developer@souk.example --password "$DEVELOPER_PASSWORD" >/dev/null \
  && "$SOUK" accounts create --email review-operator@souk.example --password "$REVIEW_OPERATOR_PASSWORD" --role operator >/dev/null \
  && "$SOUK" accounts create --email buyer@souk.example --password "$BUYER_PASSWORD" >/dev/null \
  && "$SOUK" developers add --name "Browser Studio" --id browser-studio >/dev/null \
  && "$SOUK" developers member add --developer browser-studio --email developer@souk.example --role owner >/dev/null \
  && "$SOUK" apps create --apple-item-id 6446000888 --bundle-id "$DEVELOPER_APP" --name "Studio Upload" --developer browser-studio >/dev/null \
  && "$SOUK" apps set-price --apple-item-id 6446000888 --amount 499 --currency USD >/dev/null \
  && "$SOUK" packages import "$WORK/developer-package-7" >/dev/null \
  && "$SOUK" catalog apply "$WORK/developer-catalog.json" >/dev/null \
  && "$SOUK" catalog set-developer --app "$DEVELOPER_APP" --developer browser-studio >/dev/null) \
  || fail "the developer organisation of test_developer_console.py (souk developers, apps, packages, catalog)"

rm -rf "$OUTPUT"
mkdir -p "$OUTPUT"
set +e
SOUK_BROWSER_BASE="$BASE" SOUK_BROWSER_EMAIL=demo@souk.example SOUK_BROWSER_PASSWORD="$PASSWORD" \
  SOUK_BROWSER_RETRY_EMAIL=retry@souk.example SOUK_BROWSER_RETRY_PASSWORD="$RETRY_PASSWORD" \
  SOUK_BROWSER_SIGNUP_BASE="$SIGNUP_BASE" SOUK_BROWSER_OUTPUT="$OUTPUT" \
  SOUK_BROWSER_SIGNUP_OPERATOR_PASSWORD="$SIGNUP_OPERATOR_PASSWORD" \
  SOUK_BROWSER_OPERATOR_EMAIL=operator@souk.example SOUK_BROWSER_OPERATOR_PASSWORD="$OPERATOR_PASSWORD" \
  SOUK_BROWSER_SUPPORT_EMAIL=helpdesk@souk.example SOUK_BROWSER_SUPPORT_PASSWORD="$SUPPORT_PASSWORD" \
  SOUK_BROWSER_RESET_EMAIL=forgetful@souk.example SOUK_BROWSER_RESET_PASSWORD="$RESET_PASSWORD" \
  SOUK_BROWSER_PACKAGE_ZIP="$WORK/console-package.zip" \
  SOUK_BROWSER_REVIEW_OPERATOR_EMAIL=review-operator@souk.example SOUK_BROWSER_REVIEW_OPERATOR_PASSWORD="$REVIEW_OPERATOR_PASSWORD" \
  SOUK_BROWSER_DEVELOPER_EMAIL=developer@souk.example SOUK_BROWSER_DEVELOPER_PASSWORD="$DEVELOPER_PASSWORD" \
  SOUK_BROWSER_DEVELOPER_PACKAGE_ZIP="$WORK/developer-package.zip" SOUK_BROWSER_DEVELOPER_APP="$DEVELOPER_APP" \
  SOUK_BROWSER_BUYER_EMAIL=buyer@souk.example SOUK_BROWSER_BUYER_PASSWORD="$BUYER_PASSWORD" \
  SOUK_BROWSER_STORES_APP="$STORES_APP" SOUK_BROWSER_APPLE_FAKE="$APPLE_FAKE" SOUK_BROWSER_GOOGLE_FAKE="$GOOGLE_FAKE" \
  SOUK_BROWSER_STORES_OPERATOR_EMAIL=stores-operator@souk.example SOUK_BROWSER_STORES_OPERATOR_PASSWORD="$STORES_OPERATOR_PASSWORD" \
  SOUK_BROWSER_STORES_CUSTOMER_EMAIL=subscriber@souk.example SOUK_BROWSER_STORES_CUSTOMER_PASSWORD="$STORES_CUSTOMER_PASSWORD" \
  SOUK_BROWSER_TV_CLIENT="$TV_CLIENT" SOUK_BROWSER_DEVICE="$(dirname "$SOUK")/souk-device" \
  "${RUNNER[@]}" "$PYTHON" -m pytest Tests/browser "$@"
result=$?
set -e
if [ "$result" != 0 ]; then
  cp "$WORK"/serve-*.log "$OUTPUT"/ 2>/dev/null || true
  [ "$result" != 5 ] || { echo "browser-tests: FAIL: pytest collected no tests" >&2; exit 1; }
  echo "browser-tests: FAIL: pytest exit $result; screenshots and server logs in $OUTPUT" >&2
  exit 1
fi
# The fake takes no SIGTERM (its test application's service group catches it): it holds no state worth a graceful end.
kill -KILL "$APPLE_FAKE_PID" 2>/dev/null || true
wait "$APPLE_FAKE_PID" 2>/dev/null || true
finish
