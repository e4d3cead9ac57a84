# Shared by scripts/smoke.sh and scripts/e2e-device.sh (source it after setting SOUK and WORK).
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
fail() { echo "$NAME: FAIL: $*" >&2; for f in "$WORK"/*.log; do echo "--- $f" >&2; tail -20 "$f" >&2; done; exit 1; }

# Starts `souk serve` with the given arguments on a free port; prints its base URL.
start() {
  local log="$WORK/serve-$RANDOM.log"
  (cd "$WORK" && exec "$SOUK" serve --port "${START_PORT:-0}" "$@") >"$log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    if grep -q 'Souk is listening on' "$log"; then
      grep -o 'Souk is listening on https\{0,1\}://[0-9.:]*' "$log" | awk '{print $5}'
      return 0
    fi
    sleep 0.2
  done
  fail "server did not start: $*"
}

status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# A fresh PostgreSQL database named $1 on SOUK_TEST_POSTGRES_URL; prints its URL.
postgres_database() {
  psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $1" >/dev/null
  python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$1"
}
