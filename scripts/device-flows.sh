# The souk-device journey that scripts/e2e-device.sh runs against one process and
# scripts/e2e-cluster.sh runs through nginx: install from a link (dtype download, then redownload
# on a second device), spec §0's call order, an account app and a restore after losing tokens, an
# update after an import, a takedown, an interrupted download resumed with Range, the marketplace
# app's list and installs (a paid app bought first), and `souk-device conform --strict`. Source it; it needs DEVICE, SOUK, fail, expect_in, and the
# account e2e@example.com with password $3 on the demo catalog.
#
#   device_journey BASE WORK_FOLDER PASSWORD   # the device's state goes in WORK_FOLDER/device
device_journey() {
  local base=$1 work=$2 password=$3
  local state="$work/device" out order manifest half variant_path public_id
  mkdir -p "$work"
  link() { "$SOUK" links install --account e2e@example.com "$@" | grep -o 'marketplace-kit://[^ ]*' | head -1; }

  # 1. Install a public app from a link minted by `souk links install`.
  out=$("$DEVICE" install --state "$state" "$(link --apple-item-id 6446000002)" 2>&1) || fail "install: $out"
  expect_in "installed 6446000002" "$out" "install from a link"
  expect_in "Install verification token OK" "$out" "token verified"
  # dtype (spec §4): the account's first install of the app is a download, on the link's token and on restore's.
  grep -qx "dtype download" <<<"$out" || fail "first install: expected 'dtype download' (restore's token) in: $out"
  grep -qx "link dtype download" <<<"$out" || fail "first install: expected 'link dtype download' in: $out"
  # Another device of the same account installs it again: a redownload, on both tokens.
  out=$("$DEVICE" install --state "$work/second-device" "$(link --apple-item-id 6446000002)" 2>&1) || fail "second install: $out"
  grep -qx "dtype redownload" <<<"$out" || fail "second device: expected 'dtype redownload' (restore's token) in: $out"
  grep -qx "link dtype redownload" <<<"$out" || fail "second device: expected 'link dtype redownload' in: $out"

  # Spec §0 to the letter: token exchange → license → restore → download, seen in the device's own HTTP log.
  out=$("$DEVICE" install --verbose --state "$work/order-device" "$(link --apple-item-id 6446000001)" 2>&1) || fail "verbose install: $out"
  order=$(grep -oE '→ POST [^ ]*/(oauth/token|license|restore)|→ GET [^ ]*/variant/' <<<"$out" \
    | sed -E 's#.*/(oauth/token|license|restore|variant/)$#\1#' | tr '\n' ' ')
  [ "$order" = "oauth/token license restore variant/ " ] || fail "install order: expected exchange, license, restore, download; got: $order"

  # 2. An app that needs an account (iOS 18), then a restore without tokens: 401, sign in again, retry.
  out=$("$DEVICE" install --os 18.1 --state "$state" "$(link --apple-item-id 6446000003)" 2>&1) || fail "install of an account app: $out"
  if out=$("$DEVICE" restore --forget-tokens --state "$state" 2>&1); then fail "restore without credentials succeeded: $out"; fi
  expect_in "oauthTokenError" "$out" "restore without credentials"
  out=$("$DEVICE" restore --forget-tokens --email e2e@example.com --password "$password" --state "$state" 2>&1) || fail "restore: $out"
  expect_in "Verification Required" "$out" "restore saw the 401"
  expect_in "restored 6446000003" "$out" "restore after signing in again"

  # 3. A new version is imported: the update check installs it; a second check is skipped (pollingInterval).
  "$SOUK" packages make-sample --apple-item-id 6446000002 --apple-version-id 8000000299 --bundle-id org.souk.demo.weather \
    --short-version 9.9 --bundle-version 99 --min-os 17.0 --variant-size 300000 --out "$work/update" >/dev/null
  "$SOUK" packages import "$work/update" >/dev/null
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

  # 6. The marketplace's own app (docs/api.md): its list, an install through the JSON API, and a paid
  # app refused with 402 and its checkout request, then bought (the development processor pays at
  # once) and installed.
  local app_state="$work/app-device"
  out=$("$DEVICE" browse --state "$app_state" --marketplace "$base" --query notes 2>&1) || fail "browse: $out"
  expect_in "app 6446000001  Souk Notes  Free" "$out" "the app list ranked for 'notes'"
  out=$("$DEVICE" install-from-app 6446000001 --state "$app_state" --marketplace "$base" --email e2e@example.com --password "$password" 2>&1) \
    || fail "install from the app: $out"
  expect_in "InstallMetadata: account e2e@example.com" "$out" "install metadata from the app's API"
  expect_in "installed 6446000001 8000000102" "$out" "install from the app"
  expect_in "Install verification token OK" "$out" "the app's token verified"
  out=$("$DEVICE" browse --state "$app_state" --marketplace "$base" 2>&1) || fail "signed-in browse: $out"
  expect_in "app 6446000004  Souk Sketch  2.99 USD, 2.79 EUR  buy" "$out" "a paid app offered to buy"
  if out=$("$DEVICE" install-from-app 6446000004 --state "$app_state" --marketplace "$base" --email e2e@example.com 2>&1); then
    fail "a paid app was installed without paying: $out"
  fi
  expect_in "payment required urn:souk:problem:purchase-required" "$out" "the 402 of a paid app"
  expect_in 'checkout POST '"$base"'/api/v1/checkout {"appleItemId":"6446000004"}' "$out" "the checkout request to make"
  out=$("$DEVICE" install-from-app 6446000004 --buy --state "$app_state" --marketplace "$base" --email e2e@example.com 2>&1) \
    || fail "buy then install: $out"
  expect_in "Checkout: order" "$out" "checkout made"
  expect_in "installed 6446000004" "$out" "installed after the purchase"

  # 7. The conformance checklist: a fresh account and the demo apps pass; a server that is not a marketplace fails.
  "$SOUK" apps reinstate --apple-item-id 6446000002 >/dev/null
  sleep 1.5
  out=$("$DEVICE" conform --strict "$base" --public-app 6446000002 --gated-app 6446000003 --email e2e@example.com --password "$password" 2>&1) \
    || fail "conform: $out"
  expect_in "0 failed, 0 skipped" "$out" "conformance against souk"
}
