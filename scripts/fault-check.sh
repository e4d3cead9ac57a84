#!/usr/bin/env bash
# Faults that lose nothing, against the real binary (Tests/faults/fault_check.py):
# 1. `kill -9` of `souk serve` at random points of a concurrent workload (Apple purchases posted to
#    the commerce API, their webhooks in flight to a slow receiver, license requests, checkouts) and
#    of `souk packages import` mid-import; Souk started again on the same data; then no half-written
#    state (rows, blobs, staging files), no lost committed work (every 2xx is still there, every
#    committed event delivered at least once with the same id), idempotent retries. On SQLite, and on
#    PostgreSQL when SOUK_TEST_POSTGRES_URL is set (a database per run).
# 2. PostgreSQL restarted and crashed under a load of update checks, entitlement checks, storefront
#    pages, license requests and /health (its own cluster on port 54349): the verdict or a 503
#    problem with Retry-After, never anything else; recovery without restarting Souk.
# 3. A full disk during import (a 48 MiB tmpfs in a private mount namespace): a clear error and
#    nothing half-imported.
# docs/operations.md ("Faults") says what each check means. Known findings print ⚠️ and do not fail
# the run unless FAULT_CHECK_STRICT=1. Needs python3 with cryptography; PostgreSQL for parts 1 (second
# half) and 2; root or user namespaces for part 3. Missing pieces are skipped loudly, and fail under CI=true.
#   scripts/fault-check.sh              (after swift build; SOUK_BIN_DIR=/some/copy to test copies)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${SOUK_BIN_DIR:-$(swift build --show-bin-path)}"
SOUK="$BIN/souk"
WORK=$(mktemp -d /tmp/souk-fault.XXXXXX)
NAME=fault-check
. scripts/serve-lib.sh
DB=
trap 'cleanup_all' EXIT
cleanup_all() {
  umount "$WORK/small" 2>/dev/null || true
  SOUK_TEST_PG_PORT=54349 SOUK_TEST_PG_DIR=/tmp/souk-fault-postgres scripts/postgres.sh stop 2>/dev/null || true
  cleanup
  [ -z "$DB" ] || psql "$SOUK_TEST_POSTGRES_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
}

if ! python3 -c 'import cryptography' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 cryptography is missing (.ci/run installs it)"
  echo "$NAME: ⚠️  SKIPPED: python3 cryptography is not installed (pip install cryptography)" >&2
  exit 0
fi

if [ -n "${SOUK_TEST_POSTGRES_URL:-}" ]; then
  DB="souk_fault_$$"
  FAULT_PG_URL=$(postgres_database "$DB")
  export FAULT_PG_URL
else
  [ "${CI:-}" = true ] && fail "SOUK_TEST_POSTGRES_URL is not set in CI"
  echo "$NAME: ⚠️  the kill rounds on PostgreSQL are SKIPPED (no SOUK_TEST_POSTGRES_URL; eval \"\$(scripts/postgres.sh env)\")" >&2
fi

# The full-disk part mounts a tmpfs: in a private mount namespace when one can be made (it then
# cannot outlive the run), else in the global one (as root; unmounted by the trap).
if unshare -m --propagation private true 2>/dev/null; then
  export FAULT_UNSHARE="unshare -m --propagation private"
elif unshare -rm true 2>/dev/null; then
  export FAULT_UNSHARE="unshare -rm"
else
  export FAULT_UNSHARE=
fi

python3 Tests/faults/fault_check.py run "$WORK" "$SOUK" 2>&1 | tee "$WORK/check.log"
status=${PIPESTATUS[0]}
[ "$status" = 0 ] || fail "fault check failed (see above)"
finish
echo "$NAME: OK"
