#!/usr/bin/env bash
# Keeps the OpenAPI document true (docs/api.md): Sources/SoukServer/Resources/openapi.json is checked
# as OpenAPI 3.1 and against the routes the server registers, then a `souk serve --demo` is driven
#   1. through real successful flows (Tests/openapi/openapi_check.py contract: device sign-in and
#      tokens, restore, updates, licenses, checkout, webhooks, catalogs, purchases, entitlements,
#      hosted content, store notifications, revocation), every answer validated against the document;
#   2. by schemathesis, which fuzzes every operation with the buyer's credentials: no answer ≥ 500,
#      every answer documented (status, content type, headers, schema), invalid input refused,
#      undeclared methods 405 with Allow; then again with its defaults and no credentials against a
#      plain `souk serve --demo` (no webhook secrets), as an outsider would run it;
#   3. with its PostgreSQL stopped (its own throwaway cluster, Debian's postgresql): every operation
#      answers as documented, 503 + Retry-After where it needs the database, never a 500.
# When the server serves GET /openapi.json, that document must equal the file and is the one fuzzed.
# Run by scripts/test.sh; needs `pip install schemathesis==4.32.5 openapi-spec-validator cryptography`
# (skipped with a warning without them, failed under CI=true). SOUK_BIN picks the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
SOUK="${SOUK_BIN:-$(swift build --show-bin-path)/souk}"
WORK=$(mktemp -d /tmp/souk-openapi.XXXXXX)
NAME=openapi
. scripts/serve-lib.sh
trap cleanup EXIT
export SOUK_LOG_LEVEL=warning
unset SOUK_DATABASE_URL   # the first server runs on SQLite
SPEC=Sources/SoukServer/Resources/openapi.json
FUZZ_SECONDS=${SOUK_OPENAPI_FUZZ_SECONDS:-180}   # the fuzzing's hard limit; it takes about a minute on 2 cores
EXAMPLES=${SOUK_OPENAPI_EXAMPLES:-60}            # test cases per operation and phase

if ! python3 -c 'import schemathesis, openapi_spec_validator, cryptography, requests; assert schemathesis.__version__.startswith("4.")' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 schemathesis 4.x, openapi-spec-validator or cryptography is missing (.ci/run installs them)"
  echo "$NAME: ⚠️  SKIPPED: pip install schemathesis==4.32.5 openapi-spec-validator cryptography" >&2
  exit 0
fi

python3 Tests/openapi/openapi_check.py lint "$SPEC"
python3 Tests/openapi/openapi_check.py routes "$SPEC" Sources/SoukServer

# The server trusts an Apple-shaped test chain (signed transactions and notifications) and knows
# the two webhook secrets, so the contract check and the fuzzing get past every signature.
python3 scripts/commerce-check.py prepare "$WORK/chain"
export SOUK_APPLE_ROOT_CERTIFICATES="$WORK/chain/root.der"
SOUK_ASC_WEBHOOK_SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(24))')
SOUK_STRIPE_WEBHOOK_SECRET=whsec_$(python3 -c 'import secrets; print(secrets.token_hex(24))')
export SOUK_ASC_WEBHOOK_SECRET SOUK_STRIPE_WEBHOOK_SECRET SOUK_DATA_DIR="$WORK/data"
# Amazon SNS and Roku Pay for the push notification flows: the stores-e2e fakes, SNS certificates allowed on 127.0.0.1.
python3 Tests/openapi/openapi_check.py fakes-prepare "$WORK/fakes"
python3 Tests/stores-e2e/fakestores.py "$WORK/fakes.port" "$WORK/fakes/public.pem" "$WORK/fakes/secrets.json" >"$WORK/fakes.log" 2>&1 &
track $!
for _ in $(seq 1 50); do [ -s "$WORK/fakes.port" ] && break; sleep 0.1; done
[ -s "$WORK/fakes.port" ] || fail "the fake stores did not start"
SOUK_OPENAPI_FAKES="http://127.0.0.1:$(cat "$WORK/fakes.port")"
export SOUK_OPENAPI_FAKES SOUK_ROKU_BASE_URL="$SOUK_OPENAPI_FAKES" SOUK_AMAZON_RVS_BASE_URL="$SOUK_OPENAPI_FAKES" \
  SOUK_AMAZON_SNS_CERT_URL_PATTERN='^http://127\.0\.0\.1:[0-9]+/'
start BASE --demo

# 1. Real flows, every answer validated.
python3 Tests/openapi/openapi_check.py contract "$BASE" "$SPEC" "$SOUK" "$WORK" || fail "contract check"

# 2. Fuzzing: the served document when there is one (it must equal the file), else the file.
LOCATION=$PWD/$SPEC
EXCLUDE=(--exclude-operation-id getOpenAPIDocument)
case "$(python3 Tests/openapi/openapi_check.py served "$BASE" "$SPEC")" in
  url) LOCATION="$BASE/openapi.json"; EXCLUDE=(); echo "$NAME: GET /openapi.json serves the file; fuzzing the served document" ;;
  file) echo "$NAME: ⚠️  GET /openapi.json is not served yet (404): fuzzing the file" >&2 ;;
  *) fail "GET /openapi.json" ;;
esac

set -a; . "$WORK/fuzz.env"; set +a
started=$SECONDS
status=0
(cd "$WORK" && PYTHONPATH="$OLDPWD/Tests/openapi" SCHEMATHESIS_HOOKS=signing_hooks \
  timeout "$FUZZ_SECONDS" schemathesis --config-file "$OLDPWD/Tests/openapi/schemathesis.toml" run "$LOCATION" --url "$BASE" \
    --max-examples "$EXAMPLES" --workers 1 --seed "${SOUK_OPENAPI_SEED:-$RANDOM}" "${EXCLUDE[@]}" \
    --report junit --report-dir "$WORK/report" --no-color) >"$WORK/schemathesis.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$WORK/schemathesis.log" >&2
  [ "$status" -eq 124 ] && fail "schemathesis did not finish within $FUZZ_SECONDS s"
  fail "schemathesis found answers that break the document (above; 'st replay' needs the server, so use the curl lines)"
fi
grep -E '^ +[0-9]+ generated' "$WORK/schemathesis.log" | sed "s/^ */$NAME: schemathesis: /" || true
echo "$NAME: schemathesis passed in $((SECONDS - started)) s"
stop_started

# 2b. As an outsider would: a plain `souk serve --demo` (no webhook secret, no test chain), fuzzed
#     with schemathesis's defaults and no credentials. Only positive_data_acceptance is off (docs/api.md).
started=$SECONDS
saved_env=$(declare -p SOUK_ASC_WEBHOOK_SECRET SOUK_STRIPE_WEBHOOK_SECRET SOUK_APPLE_ROOT_CERTIFICATES SOUK_DATA_DIR)
unset SOUK_ASC_WEBHOOK_SECRET SOUK_STRIPE_WEBHOOK_SECRET SOUK_APPLE_ROOT_CERTIFICATES
export SOUK_DATA_DIR="$WORK/data-outsider"
start PLAIN --demo
eval "$saved_env"
mkdir -p "$WORK/outsider"
status=0
(cd "$WORK/outsider" && timeout "$FUZZ_SECONDS" schemathesis run "$PLAIN/openapi.json" --url "$PLAIN" \
   --max-examples "$(( (EXAMPLES + 2) / 3 ))" --workers 1 --seed "${SOUK_OPENAPI_SEED:-$RANDOM}" \
   --exclude-checks positive_data_acceptance --no-color) >"$WORK/schemathesis-outsider.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  cat "$WORK/schemathesis-outsider.log" >&2
  fail "schemathesis with its defaults and no credentials found answers that break the document (above)"
fi
grep -E '^ +[0-9]+ generated' "$WORK/schemathesis-outsider.log" | sed "s/^ */$NAME: outsider: /" || true
echo "$NAME: schemathesis as an outsider (defaults, no credentials, no webhook secrets) passed in $((SECONDS - started)) s"
stop_started

# 3. The outage answers: a server on its own throwaway PostgreSQL, the database stopped under it.
export SOUK_TEST_PG_PORT=54343 SOUK_TEST_PG_DIR=/tmp/souk-openapi-postgres
trap 'scripts/postgres.sh stop; cleanup' EXIT
if PG_URL=$(scripts/postgres.sh start 2>"$WORK/pg.log"); then
  export SOUK_DATABASE_URL="$PG_URL" SOUK_DATA_DIR="$WORK/data-postgres"
  PGOPTIONS='--client-min-messages=warning' psql "$PG_URL" -qc "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null
  "$SOUK" migrate >/dev/null
  "$SOUK" demo seed >/dev/null
  start PGBASE
  python3 Tests/openapi/openapi_check.py outage "$PGBASE" "$SPEC" "$SOUK" "$WORK" || fail "outage answers"
  scripts/postgres.sh stop   # started by this run, so it carries its mark: stopped before the leftover check
else
  [ "${CI:-}" = true ] && { cat "$WORK/pg.log" >&2; fail "no PostgreSQL in CI"; }
  echo "$NAME: ⚠️  no PostgreSQL (apt-get install postgresql): the outage answers are NOT checked" >&2
fi
finish
echo "$NAME: OK"
