# Shared by the benchmark scripts (source it; it runs nothing by itself).

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Fails unless wrk and nginx are installed.
require_load_tools() {
  command -v wrk >/dev/null && command -v nginx >/dev/null \
    || { echo "needs wrk and nginx: apt-get install wrk nginx-light" >&2; exit 1; }
}

# Builds the release binary and prints its path.
# SOUK_SCRATCH_PATH names another build folder (e.g. .build-release), so a release build does not
# wait for, or block, the debug builds in .build.
release_souk() {
  local scratch=(${SOUK_SCRATCH_PATH:+--scratch-path "$SOUK_SCRATCH_PATH"})
  swift build -c release --product souk "${scratch[@]}" >/dev/null
  echo "$(swift build -c release --show-bin-path "${scratch[@]}")/souk"
}

# Waits until the server at port $1 is ready: /health/ready answers 200 once its in-memory indexes
# are loaded (up to 10 minutes: a catalog of millions of apps takes a while on a debug build).
wait_healthy() {
  for _ in $(seq 1 3000); do curl -sf "http://127.0.0.1:$1/health/ready" >/dev/null && return 0; sleep 0.2; done
  echo "souk did not become healthy on port $1" >&2
  exit 1
}

# Server CPU time of process $1 in clock ticks (user + system).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Makes a fresh database NAME on the throwaway PostgreSQL (scripts/postgres.sh, started if needed),
# sets DB to its name and exports SOUK_DATABASE_URL naming it, and migrates it with $SOUK. The
# caller drops it: psql "$SOUK_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS $DB".
bench_database() {
  [ -n "${SOUK_TEST_POSTGRES_URL:-}" ] || eval "$(scripts/postgres.sh env)"
  DB="$1"
  psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $DB" >/dev/null
  SOUK_DATABASE_URL=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$DB")
  export SOUK_DATABASE_URL
  "$SOUK" migrate >/dev/null
}
