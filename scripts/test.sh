#!/usr/bin/env bash
# The whole test suite: builds once, runs the end-to-end smoke test of the real binary, the
# souk-device end-to-end tests (scripts/e2e-device.sh), in-app commerce from outside
# (scripts/e2e-commerce.sh), every store and every change against fakes of Google, Amazon, Roku,
# Apple's notifications and a webhook receiver (scripts/e2e-stores.sh), the marketplace's own sales against a
# fake Stripe (scripts/e2e-selling.sh), the outage check, two processes behind nginx
# (scripts/e2e-cluster.sh), the OpenAPI document against real answers and schemathesis
# (scripts/openapi-check.sh), blobs on an S3-compatible store (scripts/e2e-s3.sh, moto), kill -9,
# PostgreSQL restarts and a full disk (scripts/fault-check.sh), the load script on a small seed
# (scripts/load.sh, SCALE=smoke) and the real-browser
# tests (scripts/browser-tests.sh: Chromium and WebKit, skipped with a warning when not installed,
# screenshots in test-output/browser/), the cross-check of Apple verdicts with Apple's own library
# (scripts/apple-verdicts.sh, skipped with a warning without it), then every Swift test. First of all,
# the Swift client's generated code must be what the OpenAPI document generates (scripts/generate-client.sh --check). No script leaves a process behind.
# Storage tests run on SQLite and on PostgreSQL: when SOUK_TEST_POSTGRES_URL is not set, a
# throwaway PostgreSQL is started from Debian's packages if they are installed (scripts/postgres.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  if env_line=$(scripts/postgres.sh env 2>/tmp/souk-postgres-start.log); then
    eval "$env_line"
    echo "test: using a throwaway PostgreSQL at $SOUK_TEST_POSTGRES_URL"
  else
    echo "test: ⚠️  no PostgreSQL (apt-get install postgresql): PostgreSQL tests will be SKIPPED" >&2
    cat /tmp/souk-postgres-start.log >&2 || true
  fi
fi
export SOUK_TEST_POSTGRES_URL="${SOUK_TEST_POSTGRES_URL:-}"

scripts/generate-client.sh --check
swift build --build-tests
scripts/smoke.sh
scripts/e2e-device.sh
scripts/e2e-commerce.sh
scripts/e2e-stores.sh
scripts/e2e-selling.sh
scripts/outage-check.sh
scripts/e2e-cluster.sh
scripts/openapi-check.sh
scripts/e2e-s3.sh
scripts/fault-check.sh
SCALE=smoke SOUK_BIN="$(swift build --show-bin-path)/souk" scripts/load.sh
scripts/browser-tests.sh
scripts/apple-verdicts.sh
# At most 48 test cases at once: unbounded, swift-testing started so many servers together that
# their connection pools (16 connections each) took all 2,000 of the test PostgreSQL's connections
# ("sorry, too many clients already"). docs/development.md, "Test layout".
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-48}" swift test --skip-build
