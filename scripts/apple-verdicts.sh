#!/usr/bin/env bash
# Souk's Apple verdicts against Apple's own library (Tests/apple-verdicts: pytest). Signs a corpus
# of StoreKit 2 transactions with Apple-shaped chains made by Python's `cryptography`, adds the
# genuine Apple-signed samples of Tests/SoukIntegrationsTests/Fixtures/apple-real-signed-data.json,
# and checks that `souk apple verify-transaction` answers exactly what Apple's
# app-store-server-library (SignedDataVerifier, online checks off) answers, case by case; and that
# `souk apple sign-offer` signs promotional offers as Apple's PromotionalOfferV2SignatureCreator and
# PromotionalOfferSignatureCreator do (test_promotional_offers.py); and that
# `souk apple verify-receipt` takes from each StoreKit 1 app receipt (made with `cryptography`, and
# the genuine ones of Tests/SoukIntegrationsTests/Fixtures/apple-real-app-receipts.json) the
# transaction id Apple's ReceiptUtility takes, with the verdict each receipt is built for. Builds
# nothing: it runs the `souk` that scripts/test.sh built (.build/debug/souk, or SOUK_BIN). Without
# the Python packages it is skipped with a warning; with CI=true it fails. Extra arguments go to
# pytest (e.g. -k expired).
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$PWD/.build/debug/souk}"
PYTHON="${PYTHON:-python3}"
IN_CI=$([[ "${CI:-}" =~ ^(1|true|yes)$ ]] && echo 1 || true)

[ -x "$SOUK" ] || { echo "apple-verdicts: FAIL: no $SOUK; build first (scripts/test.sh, or swift build)" >&2; exit 1; }
if ! "$PYTHON" -c 'import appstoreserverlibrary, cryptography, pytest' 2>/dev/null; then
  message="Apple's Python library is not installed (pip install app-store-server-library pytest)"
  if [ -n "$IN_CI" ]; then echo "apple-verdicts: FAIL: CI=true but $message" >&2; exit 1; fi
  echo "apple-verdicts: ⚠️  $message — the cross-check with Apple's library is SKIPPED" >&2
  exit 0
fi

set +e
SOUK_BIN="$SOUK" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m pytest -q -p no:cacheprovider Tests/apple-verdicts "$@"
result=$?
set -e
if [ "$result" = 5 ]; then echo "apple-verdicts: FAIL: no test was collected" >&2; exit 1; fi
[ "$result" = 0 ] || { echo "apple-verdicts: FAIL (pytest exit $result)" >&2; exit "$result"; }
echo "apple-verdicts: Souk and Apple's library agree on every case"
