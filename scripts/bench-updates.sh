#!/usr/bin/env bash
# First measurement of the update check: a release `souk serve` with the demo catalog answering
# `updates` for 30 installed apps that are all current (the common case), beside nginx serving a
# static JSON file the size of Souk's answer. Not yet the issue's 100,000-app benchmark.
#   scripts/bench-updates.sh        # DURATION=10 CONNECTIONS=64
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
require_load_tools
SOUK=$(release_souk)
WORK=$(mktemp -d /tmp/souk-bench-updates.XXXXXX)
chmod 755 "$WORK"
trap 'kill $SERVER 2>/dev/null || true; nginx -c "$WORK/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning
"$SOUK" demo seed >/dev/null
PORT=$(free_port)
NGINX_PORT=$(free_port)
"$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SERVER=$!
wait_healthy "$PORT"

# The two public demo apps, 15 times each, at their newest versions: nothing to update.
BODY=$(python3 -c '
import json
apps = [("6446000001", "8000000102"), ("6446000002", "8000000202")] * 15
print(json.dumps({"apps": [{"appleItemId": a, "appleVersionId": v} for a, v in apps], "platform": "iOS", "osVersion": "18.0"}))')
ANSWER=$(curl -s -H 'Content-Type: application/json' -d "$BODY" "http://127.0.0.1:$PORT/marketplace-kit/v1/updates")
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["updates"] == [] and d["failures"] == [], d' "$ANSWER"
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$NGINX_PORT; location / { default_type application/json; return 200 '$ANSWER'; } } }
CONF
nginx -c "$WORK/nginx.conf"
cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.body = [[$BODY]]
wrk.headers["Content-Type"] = "application/json"
LUA
cpu() { cpu_ticks "$SERVER"; }
BEFORE=$(cpu)
OUT=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$WORK/post.lua" "http://127.0.0.1:$PORT/marketplace-kit/v1/updates")
AFTER=$(cpu)
NOUT=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$WORK/post.lua" "http://127.0.0.1:$NGINX_PORT/updates")
if grep -q 'Non-2xx' <<<"$OUT$NOUT"; then echo "non-2xx answers: $OUT $NOUT" >&2; exit 1; fi
S=$(awk '/Requests\/sec/ {print $2}' <<<"$OUT"); N=$(awk '/Requests\/sec/ {print $2}' <<<"$NOUT")
REQ=$(awk '/requests in/ {print $1}' <<<"$OUT")
P99=$(awk '$1=="99%" {print $2}' <<<"$OUT")
echo "updates, 30 current apps: souk $S req/s, nginx $N req/s ($(python3 -c "print(round(100*$S/$N))")%), p99 $P99 at full load, souk CPU $(python3 -c "print(round(($AFTER-$BEFORE)/$(getconf CLK_TCK)/max($REQ,1)*1e6))") µs/request"
