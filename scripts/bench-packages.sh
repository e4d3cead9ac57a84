#!/usr/bin/env bash
# Package-download benchmark: a release `souk serve` beside nginx serving the same files, both
# driven by wrk on loopback, and a second `souk serve` with SOUK_DOWNLOADS_VIA=nginx behind nginx
# (X-Accel-Redirect to an internal location over the blob folder, as deploy/nginx/souk.conf does).
# Prints requests/s of each, each one's share of nginx alone, and Souk's CPU time per request
# (from /proc, steadier than requests/s on a shared 2-core machine).
#
#   scripts/bench-packages.sh            # 10 s per case; DURATION=30 CONNECTIONS=64 to change
# Needs wrk and nginx (apt-get install wrk nginx-light). Bounded: every wrk run stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
require_load_tools

SOUK=$(release_souk)
WORK=$(mktemp -d /tmp/souk-bench.XXXXXX)
chmod 755 "$WORK"   # nginx's workers run as www-data and must reach the copied files
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; nginx -c "$WORK/nginx.conf" -s stop 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SOUK_DATA_DIR="$WORK/data" SOUK_LOG_LEVEL=warning

"$SOUK" apps create --apple-item-id 6500000001 --bundle-id org.example.bench --name Bench >/dev/null
"$SOUK" packages make-sample --apple-item-id 6500000001 --apple-version-id 9000000001 --bundle-id org.example.bench \
  --short-version 1.0 --bundle-version 1 --min-os 17.0 --variant-size 1048576 --out "$WORK/pkg" >/dev/null
"$SOUK" packages import "$WORK/pkg" >/dev/null
VARIANT=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["variants"][0]["assetPath"])' "$WORK/pkg/manifest.json")
# A second version with a 16 MiB variant: real packages are tens of megabytes or more.
"$SOUK" packages make-sample --apple-item-id 6500000001 --apple-version-id 9000000002 --bundle-id org.example.bench \
  --short-version 1.1 --bundle-version 2 --min-os 17.0 --variant-size 16777216 --out "$WORK/pkg-large" >/dev/null
"$SOUK" packages import "$WORK/pkg-large" >/dev/null
LARGE=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["variants"][0]["assetPath"])' "$WORK/pkg-large/manifest.json")

PORT=$(free_port)
NGINX_PORT=$(free_port)
ACCEL_SOUK_PORT=$(free_port)
ACCEL_PORT=$(free_port)
"$SOUK" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
SOUK_PID=$!
PIDS+=("$SOUK_PID")
SOUK_DOWNLOADS_VIA=nginx "$SOUK" serve --port "$ACCEL_SOUK_PORT" >"$WORK/serve-accel.log" 2>&1 &
ACCEL_PID=$!
PIDS+=("$ACCEL_PID")
chmod 755 "$WORK/data"

mkdir -p "$WORK/www/packages/6500000001/9000000001"
cp -r "$WORK/pkg/." "$WORK/www/packages/6500000001/9000000001/"
mkdir -p "$WORK/www/packages/6500000001/9000000002"
cp -r "$WORK/pkg-large/." "$WORK/www/packages/6500000001/9000000002/"
cat >"$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/www; }
  # Souk decides, nginx sends the bytes (the same locations as deploy/nginx/souk.conf).
  upstream souk { server 127.0.0.1:$ACCEL_SOUK_PORT; keepalive 32; }
  server {
    listen 127.0.0.1:$ACCEL_PORT;
    location / {
      proxy_pass http://souk;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
    }
    location /_souk_blobs/ {
      internal;
      alias $WORK/data/blobs/;
      etag off;
      if_modified_since off;
      max_ranges 1;
      add_header ETag \$upstream_http_etag always;
      add_header Last-Modified \$upstream_http_last_modified always;
    }
  }
}
CONF
nginx -c "$WORK/nginx.conf"
wait_healthy "$PORT"
wait_healthy "$ACCEL_SOUK_PORT"

rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
requests() { awk '/requests in/ {print $1}' <<<"$1"; }
TICK=$(getconf CLK_TCK)

# A header for one server: {etag} becomes that server's own ETag for the path.
for_server() {
  local header="$1" port="$2" path="$3"
  if [[ "$header" == *"{etag}"* ]]; then
    local etag
    etag=$(curl -sI "http://127.0.0.1:$port$path" | awk 'tolower($1)=="etag:" {print $2}' | tr -d '\r')
    header="${header//\{etag\}/$etag}"
  fi
  printf '%s' "$header"
}

printf '%-34s %11s %6s %16s %14s %6s %12s\n' "case" "souk req/s" "share" "souk CPU/req" "X-Accel req/s" "share" "nginx req/s"
run_case() {
  local name="$1" path="$2" header="${3:-}"
  local args=(-t2 -c"$CONNECTIONS" -d"${DURATION}s")
  local before after out aout nout
  before=$(cpu_ticks "$SOUK_PID")
  local souk_args=("${args[@]}") accel_args=("${args[@]}") nginx_args=("${args[@]}")
  if [ -n "$header" ]; then
    souk_args+=(-H "$(for_server "$header" "$PORT" "$path")")
    accel_args+=(-H "$(for_server "$header" "$ACCEL_PORT" "$path")")
    nginx_args+=(-H "$(for_server "$header" "$NGINX_PORT" "$path")")
  fi
  out=$(wrk "${souk_args[@]}" "http://127.0.0.1:$PORT$path")
  after=$(cpu_ticks "$SOUK_PID")
  aout=$(wrk "${accel_args[@]}" "http://127.0.0.1:$ACCEL_PORT$path")
  nout=$(wrk "${nginx_args[@]}" "http://127.0.0.1:$NGINX_PORT$path")
  local s a n req cpu
  # A benchmark of error pages measures nothing: refuse to report one.
  if grep -q 'Non-2xx' <<<"$out$aout$nout"; then echo "$name: non-2xx/3xx answers, check the setup" >&2; echo "$out" "$aout" "$nout" >&2; exit 1; fi
  s=$(rps "$out"); a=$(rps "$aout"); n=$(rps "$nout"); req=$(requests "$out")
  cpu=$(python3 -c "print(f'{($after-$before)/$TICK/max($req,1)*1e6:.0f} µs')")
  printf '%-34s %11s %5s%% %16s %14s %5s%% %12s\n' "$name" "$s" "$(python3 -c "print(round(100*$s/$n))")" "$cpu" \
    "$a" "$(python3 -c "print(round(100*$a/$n))")" "$n"
}
B=/packages/6500000001/9000000001
run_case "manifest.json (~3 KB)" "$B/manifest.json"
run_case "variant, 64 KiB range" "$B/$VARIANT" "Range: bytes=0-65535"
run_case "variant, whole 1 MiB" "$B/$VARIANT"
run_case "variant, whole 16 MiB" "/packages/6500000001/9000000002/$LARGE"
run_case "304 Not Modified (If-None-Match)" "$B/$VARIANT" "If-None-Match: {etag}"
