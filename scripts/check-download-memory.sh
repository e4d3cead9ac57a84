#!/usr/bin/env bash
# Imports a large sample package (default 1 GiB variant), downloads it from `souk serve` with curl,
# and reports the server's resident memory before and at its peak during the download.
#   scripts/check-download-memory.sh [BYTES]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
SIZE="${1:-1073741824}"
SOUK=$(release_souk)
WORK=$(mktemp -d /tmp/souk-memory.XXXXXX)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning
"$SOUK" apps create --apple-item-id 6500000001 --bundle-id org.example.big --name Big >/dev/null
"$SOUK" packages make-sample --apple-item-id 6500000001 --apple-version-id 9000000001 --bundle-id org.example.big \
  --short-version 1.0 --bundle-version 1 --min-os 17.0 --variant-size "$SIZE" --out "$WORK/pkg" >/dev/null
"$SOUK" packages import "$WORK/pkg" >/dev/null
rm -rf "$WORK/pkg/variant"   # keep only the blob store's copy on disk
VARIANT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["variants"][0]["assetPath"])' "$WORK/pkg/manifest.json")
PORT=$(free_port)
"$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
wait_healthy "$PORT"
rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }
URL="http://127.0.0.1:$PORT/packages/6500000001/9000000001/$VARIANT"
# Warm up first (thread pool, buffers, allocator arenas), so the growth below is what the size costs.
curl -s -o /dev/null -H 'Range: bytes=0-16777215' "$URL"
AFTER_WARMUP=$(rss)
BEFORE=$AFTER_WARMUP
PEAK=$BEFORE
curl -s -o /dev/null --limit-rate "${RATE:-400M}" "$URL" &
CURL=$!
while kill -0 $CURL 2>/dev/null; do
  NOW=$(rss); [ "$NOW" -gt "$PEAK" ] && PEAK=$NOW
  sleep 0.05
done
wait $CURL
echo "downloaded $SIZE bytes: server RSS before ${BEFORE} KiB, peak ${PEAK} KiB, growth $((PEAK - BEFORE)) KiB"
