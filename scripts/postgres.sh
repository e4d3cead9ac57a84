#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL server for Souk's tests, with its data under /tmp,
# and prints its URL on the last line. Needs Debian's postgresql package (.ci/run installs it).
#
#   eval "$(scripts/postgres.sh env)"     # exports SOUK_TEST_POSTGRES_URL
#   scripts/postgres.sh stop
set -euo pipefail

PORT="${SOUK_TEST_PG_PORT:-54329}"
ROOT="${SOUK_TEST_PG_DIR:-/tmp/souk-test-postgres}"
DATA="$ROOT/data"
SOCKETS="$ROOT/sockets"
URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"

bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$dir" ] || [ ! -x "$dir/pg_ctl" ]; then
    echo "PostgreSQL server binaries not found: apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "$dir"
}

# PostgreSQL refuses to run as root: run its tools as the 'postgres' user when we are root.
as_owner() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  local bin
  bin=$(bindir)
  mkdir -p "$ROOT" "$SOCKETS"
  # Not recursive: a running server's databases come and go under $DATA while tests run, and
  # initdb makes $DATA as its owner anyway.
  if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$ROOT" "$SOCKETS"; fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C >"$ROOT/initdb.log" 2>&1 \
      || { cat "$ROOT/initdb.log" >&2; exit 1; }
  fi
  if ! as_owner "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    as_owner "$bin/pg_ctl" -D "$DATA" -l "$ROOT/server.log" -w -t 60 \
      -o "-p $PORT -k $SOCKETS -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=2000" start >/dev/null \
      || { cat "$ROOT/server.log" >&2; exit 1; }
  fi
  for _ in $(seq 1 60); do
    if as_owner "$bin/pg_isready" -h 127.0.0.1 -p "$PORT" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  echo "PostgreSQL did not become ready on port $PORT" >&2
  exit 1
}

case "${1:-start}" in
  start) start; echo "$URL" ;;
  env) start; echo "export SOUK_TEST_POSTGRES_URL='$URL'" ;;
  stop) as_owner "$(bindir)/pg_ctl" -D "$DATA" -m fast stop >/dev/null 2>&1 || true ;;
  url) echo "$URL" ;;
  *) echo "usage: $0 [start|env|stop|url]" >&2; exit 2 ;;
esac
