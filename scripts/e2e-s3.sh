#!/usr/bin/env bash
# Blobs on an S3-compatible object store (SOUK_BLOB_STORE=s3), checked from outside against moto's
# S3 server (PyPI `moto[server]`) with its signature and policy checks on: the demo's blobs
# uploaded, downloads by presigned 302 with the bytes from the store (ranges, a changed URL
# refused), HEAD and 304 from Souk, a blob missing here fetched from the store, an import the
# store refuses failing with no version written, a taken-down app a 404, and the store down a
# 503. Tests/s3-e2e/s3_check.py does the checking. Run by scripts/test.sh after `swift build`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${SOUK_BIN_DIR:-$(swift build --show-bin-path)}"
SOUK="$BIN/souk"
WORK=$(mktemp -d /tmp/souk-e2e-s3.XXXXXX)
NAME=e2e-s3
. scripts/serve-lib.sh
trap cleanup EXIT
export SOUK_LOG_LEVEL=warning

if ! python3 -c 'import moto.server, boto3, flask' 2>/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 moto[server] and boto3 are missing (.ci/run installs them)"
  echo "$NAME: ⚠️  SKIPPED: moto[server] is not installed (pip install 'moto[server]')" >&2
  exit 0
fi

MOTO_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ENDPOINT="http://127.0.0.1:$MOTO_PORT"
start_moto() {
  # The first four calls (user, key, policy, bucket) need no signature; every later one is checked.
  INITIAL_NO_AUTH_ACTION_COUNT=4 python3 -m moto.server -H 127.0.0.1 -p "$MOTO_PORT" >"$WORK/moto.log" 2>&1 &
  MOTO_PID=$!
  track $MOTO_PID
  for _ in $(seq 1 100); do curl -s -o /dev/null "$ENDPOINT/" && return 0; sleep 0.1; done
  fail "moto did not start"
}
start_moto
python3 Tests/s3-e2e/s3_check.py setup "$ENDPOINT" "$WORK/keys.json"

export SOUK_DATA_DIR="$WORK/data" SOUK_BLOB_STORE=s3 SOUK_S3_ENDPOINT="$ENDPOINT" SOUK_S3_BUCKET=souk-blobs SOUK_S3_REGION=us-east-1
SOUK_S3_ACCESS_KEY_ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/keys.json")
SOUK_S3_SECRET_ACCESS_KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["secret"])' "$WORK/keys.json")
export SOUK_S3_ACCESS_KEY_ID SOUK_S3_SECRET_ACCESS_KEY
"$SOUK" demo seed >/dev/null
start BASE
python3 Tests/s3-e2e/s3_check.py check "$BASE" "$ENDPOINT" "$SOUK_DATA_DIR" "$SOUK" "$WORK/keys.json"
python3 Tests/s3-e2e/exports_check.py "$ENDPOINT" "$SOUK" "$WORK/keys.json"
grep -q "$SOUK_S3_SECRET_ACCESS_KEY" "$WORK"/*.log && fail "the secret access key reached a log"

kill "$MOTO_PID"
wait "$MOTO_PID" 2>/dev/null || true
python3 Tests/s3-e2e/s3_check.py outage "$BASE" "$SOUK_DATA_DIR"
finish
echo "$NAME: OK"
