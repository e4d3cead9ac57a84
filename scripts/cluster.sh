#!/usr/bin/env bash
# A local Souk cluster as in production (docs/deploy.md): its own PostgreSQL, two `souk serve`
# processes sharing that database and one data folder, and nginx in front load-balancing both,
# configured from deploy/nginx/souk.conf.
#
#   scripts/cluster.sh start [--demo]   # builds souk (unless SOUK_BIN is set), starts everything, prints:
#       nginx http://127.0.0.1:…          the address to use (SOUK_PUBLIC_URL unless you set one)
#       souk 1 http://127.0.0.1:…         each process on its own, to check what one of them sees
#       souk 2 http://127.0.0.1:…
#       SOUK_DATABASE_URL=postgres://…    for operator commands: export these two, then `souk …`
#       SOUK_DATA_DIR=…
#   scripts/cluster.sh status           # the same lines while everything runs (exit 1 otherwise)
#   scripts/cluster.sh stop             # stops everything it started; the data stays for the next start
#
# State lives under SOUK_CLUSTER_DIR (default /tmp/souk-cluster): postgres/ (the database cluster),
# data/ (SOUK_DATA_DIR), nginx/ (generated configuration and logs), souk-1.log, souk-2.log, run/
# (pid files), demo.txt (the demo passwords, with --demo or SOUK_CLUSTER_DEMO=1). Delete the folder
# after `stop` to start from nothing.
#
# `start` on a running cluster changes nothing and prints its lines again (stop it first to change
# settings); a cluster found half running (a process died) is stopped and started anew.
# Every SOUK_* variable of the caller reaches both processes (SOUK_DOWNLOADS_VIA=nginx,
# SOUK_WEBHOOK_RETRY_BASE_MS=…), except those the cluster owns: SOUK_DATABASE_URL, SOUK_DATA_DIR,
# SOUK_HOSTNAME, SOUK_PORT, SOUK_TLS_CERT and SOUK_TLS_KEY. Defaults it adds: SOUK_PUBLIC_URL=<nginx
# URL> and SOUK_TRUSTED_PROXIES=127.0.0.1/32 (nginx), each unless set; with --demo also
# SOUK_PAYMENT_PROCESSOR=development (no money moves) unless set.
# Other knobs: SOUK_CLUSTER_PORT (nginx's port; default a free one), SOUK_CLUSTER_PG_OPTIONS (extra
# `postgres` options, such as "-c fsync=off"), SOUK_CLUSTER_READY_SECONDS (how long each process may
# take to become ready, /health/ready; default 300).
#
# Needs Debian's postgresql and nginx (apt-get install postgresql nginx). As root, PostgreSQL
# runs as the `postgres` user and nginx's workers as `www-data`: both must be able to reach the folder.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TEMPLATE="$ROOT/deploy/nginx/souk.conf"
DIR="${SOUK_CLUSTER_DIR:-/tmp/souk-cluster}"
RUN="$DIR/run"
LINES="$DIR/cluster.txt"

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# True while process $1 exists, is not a zombie, and its command line contains $2.
alive() {
  local pid=$1 name=$2 state
  [ -n "$pid" ] || return 1
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ] || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "$name"
}

pid_of() { [ -s "$1" ] && head -1 "$1" | tr -d ' \n' || true; }
souk_pid() { pid_of "$RUN/souk-$1.pid"; }
nginx_pid() { pid_of "$RUN/nginx.pid"; }
postgres_pid() { pid_of "$DIR/postgres/data/postmaster.pid"; }

pg_bindir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$dir" ] && [ -x "$dir/pg_ctl" ] || die "PostgreSQL server binaries not found: apt-get install postgresql"
  echo "$dir"
}

# PostgreSQL refuses to run as root: its tools run as the `postgres` user when we are root.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Which parts run: prints "souk1 souk2 nginx postgres" for those alive.
running_parts() {
  local parts=()
  alive "$(souk_pid 1)" souk && parts+=(souk1)
  alive "$(souk_pid 2)" souk && parts+=(souk2)
  alive "$(nginx_pid)" nginx && parts+=(nginx)
  alive "$(postgres_pid)" postgres && parts+=(postgres)
  echo "${parts[*]:-}"
}

# Sends SIGTERM (or $3) to process $1 (named $2 in messages and /proc), waits up to $4 seconds,
# then SIGKILL. Returns 1 when SIGKILL was needed.
stop_process() {
  local pid=$1 name=$2 signal=${3:-TERM} seconds=${4:-15}
  alive "$pid" "$name" || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((seconds * 5))); do
    alive "$pid" "$name" || return 0
    sleep 0.2
  done
  say "$name ($pid) did not stop within $seconds s of SIG$signal: killed"
  kill -KILL "$pid" 2>/dev/null || true
  for _ in $(seq 1 25); do alive "$pid" "$name" || break; sleep 0.2; done
  return 1
}

stop_all() {
  local clean=0 pid
  # nginx first (no new requests), then the Souk processes, then the database under them.
  stop_process "$(nginx_pid)" nginx QUIT 10 || clean=1
  for n in 1 2; do stop_process "$(souk_pid "$n")" souk TERM 15 || clean=1; done
  pid=$(postgres_pid)
  if alive "$pid" postgres; then
    as_postgres "$(pg_bindir)/pg_ctl" -D "$DIR/postgres/data" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    stop_process "$pid" postgres TERM 5 || clean=1
  fi
  rm -f "$RUN"/*.pid
  local left
  left=$(running_parts)
  [ -z "$left" ] || die "still running after stop: $left"
  return $clean
}

print_lines() { cat "$LINES"; }

tail_logs() {
  local f
  for f in "$DIR"/souk-*.log "$DIR/postgres/server.log" "$DIR/nginx/error.log" "$DIR/migrate.log"; do
    [ -s "$f" ] || continue
    echo "--- $f" >&2
    tail -20 "$f" >&2
  done
}

# The souk binary: SOUK_BIN, or a debug build of the product.
souk_binary() {
  if [ -n "${SOUK_BIN:-}" ]; then
    [ -x "$SOUK_BIN" ] || die "SOUK_BIN=$SOUK_BIN is not an executable"
    (cd "$(dirname "$SOUK_BIN")" && echo "$(pwd)/$(basename "$SOUK_BIN")")
    return
  fi
  (cd "$ROOT" && swift build --product souk >&2 && echo "$(swift build --show-bin-path)/souk")
}

start_postgres() {
  local bin port=$1
  bin=$(pg_bindir)
  local pg="$DIR/postgres"
  mkdir -p "$pg/sockets"
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$pg"
    runuser -u postgres -- test -x "$pg" \
      || die "the postgres user cannot reach $pg: give its parent folders o+x (chmod 755), or choose another SOUK_CLUSTER_DIR"
  fi
  if [ ! -f "$pg/data/PG_VERSION" ]; then
    as_postgres "$bin/initdb" -D "$pg/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C >"$pg/initdb.log" 2>&1 || { cat "$pg/initdb.log" >&2; die "initdb failed"; }
  fi
  # shellcheck disable=SC2086  # SOUK_CLUSTER_PG_OPTIONS is a list of options
  as_postgres "$bin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w -t 60 \
    -o "-p $port -k $pg/sockets -c listen_addresses=127.0.0.1 -c max_connections=300 ${SOUK_CLUSTER_PG_OPTIONS:-}" \
    start </dev/null >/dev/null 2>&1 9>&- || { tail -20 "$pg/server.log" >&2; die "PostgreSQL did not start"; }
  # The role and database Souk uses, with a password (hex) over TCP like a real deployment.
  local password_file="$pg/souk-password" password
  if [ ! -s "$password_file" ]; then
    python3 -c 'import secrets; print(secrets.token_hex(16))' >"$password_file"
    chmod 600 "$password_file"
  fi
  password=$(cat "$password_file")
  local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$pg/sockets" -p "$port" -U postgres -d postgres)
  as_postgres "${psql[@]}" -c "DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'souk') THEN CREATE ROLE souk LOGIN; END IF;
    END \$\$; ALTER ROLE souk PASSWORD '$password';" >/dev/null
  if [ -z "$(as_postgres "${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = 'souk'")" ]; then
    as_postgres "${psql[@]}" -c "CREATE DATABASE souk OWNER souk" >/dev/null
  fi
  echo "postgres://souk:$password@127.0.0.1:$port/souk?sslmode=disable"
}

start_souk() {
  local n=$1 port=$2 log="$DIR/souk-$1.log"
  : >"$log"
  setsid "$SOUK" serve --hostname 127.0.0.1 --port "$port" </dev/null >>"$log" 2>&1 9>&- &
  echo $! >"$RUN/souk-$n.pid"
}

# Waits until souk $1 is ready for traffic: /health/ready answers 200 once its in-memory indexes are
# loaded (/health, liveness, answers as soon as the port is open). nginx is started only after
# both are ready, so no request reaches a process still loading (docs/operations.md).
wait_souk() {
  local n=$1 url=$2 pid seconds=${SOUK_CLUSTER_READY_SECONDS:-300}
  pid=$(souk_pid "$n")
  for _ in $(seq 1 $((seconds * 5))); do
    if grep -q 'Souk is listening on' "$DIR/souk-$n.log" && [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/health/ready")" = 200 ]; then
      return 0
    fi
    alive "$pid" souk || { tail_logs; die "souk $n exited while starting"; }
    sleep 0.2
  done
  tail_logs
  die "souk $n was not ready (/health/ready) within $seconds s (SOUK_CLUSTER_READY_SECONDS)"
}

# nginx's configuration: a small main file around deploy/nginx/souk.conf with its placeholders
# replaced, its TLS lines and whole-line comments left out, its logs in the cluster's nginx folder.
write_nginx_config() {
  local port=$1 p1=$2 p2=$3 conf="$DIR/nginx"
  mkdir -p "$conf/tmp"
  local upstreams="server 127.0.0.1:$p1 max_fails=3 fail_timeout=10s; server 127.0.0.1:$p2 max_fails=3 fail_timeout=10s;"
  sed -e '/# TLS$/d' -e '/^[[:space:]]*#/d' \
      -e "s|\${SOUK_UPSTREAM_SERVERS}|$upstreams|g" \
      -e "s|\${SOUK_LISTEN}|127.0.0.1:$port|g" \
      -e "s|\${SOUK_SERVER_NAME}|localhost|g" \
      -e "s|\${SOUK_DATA_DIR}|$SOUK_DATA_DIR|g" \
      -e "s|\${SOUK_X_ACCEL_PREFIX}|${SOUK_X_ACCEL_PREFIX:-/_souk_blobs/}|g" \
      -e "s|/var/log/nginx/|$conf/|g" \
      "$TEMPLATE" >"$conf/souk.conf"
  if grep -n '\${SOUK_' "$conf/souk.conf" >&2; then die "placeholders left in $conf/souk.conf"; fi
  local user=
  if [ "$(id -u)" = 0 ]; then
    if id www-data >/dev/null 2>&1; then user="user www-data;"; else user="user nobody $(id -gn nobody);"; fi
  fi
  cat >"$conf/nginx.conf" <<CONF
# Written by scripts/cluster.sh; the server itself is souk.conf, made from deploy/nginx/souk.conf.
daemon off;
$user
worker_processes 2;
pid $RUN/nginx.pid;
error_log $conf/error.log warn;
events { worker_connections 1024; }
http {
    default_type application/octet-stream;
    access_log $conf/access.log;
    client_body_temp_path $conf/tmp/client_body;
    proxy_temp_path $conf/tmp/proxy;
    fastcgi_temp_path $conf/tmp/fastcgi;
    uwsgi_temp_path $conf/tmp/uwsgi;
    scgi_temp_path $conf/tmp/scgi;
    include $conf/souk.conf;
}
CONF
}

start_nginx() {
  local url=$1 conf="$DIR/nginx"
  local nginx=(nginx -p "$conf" -c "$conf/nginx.conf" -e "$conf/error.log")
  "${nginx[@]}" -t >"$conf/test.log" 2>&1 || { cat "$conf/test.log" >&2; die "nginx -t failed on $conf/nginx.conf"; }
  setsid "${nginx[@]}" </dev/null >>"$conf/stderr.log" 2>&1 9>&- &
  echo $! >"$RUN/nginx.pid"
  local pid=$!
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/health/ready")" = 200 ] && return 0
    alive "$pid" nginx || { cat "$conf/stderr.log" "$conf/error.log" >&2 2>/dev/null || true; die "nginx exited while starting"; }
    sleep 0.1
  done
  tail -20 "$conf/error.log" >&2 || true
  die "nginx did not answer /health/ready within 10 s"
}

start_cluster() {
  local demo=${SOUK_CLUSTER_DEMO:-}
  [ "${1:-}" = --demo ] && demo=1
  local parts
  parts=$(running_parts)
  if [ "$parts" = "souk1 souk2 nginx postgres" ] && [ -s "$LINES" ]; then
    say "already running in $DIR (settings unchanged; scripts/cluster.sh stop first to change them)"
    print_lines
    return 0
  fi
  if [ -n "$parts" ]; then
    say "found part of a cluster running ($parts): stopping it to start anew"
    stop_all || true
  fi
  command -v nginx >/dev/null || die "nginx not found: apt-get install nginx"
  pg_bindir >/dev/null
  SOUK=$(souk_binary)
  rm -f "$LINES"

  local var
  for var in SOUK_DATABASE_URL SOUK_DATA_DIR SOUK_HOSTNAME SOUK_PORT SOUK_TLS_CERT SOUK_TLS_KEY; do
    if [ -n "${!var:-}" ]; then say "ignoring $var: the cluster sets its own"; fi
    unset "$var"
  done
  local nginx_port p1 p2 pg_port
  nginx_port=${SOUK_CLUSTER_PORT:-$(free_port)}
  p1=$(free_port); p2=$(free_port); pg_port=$(free_port)
  while [ "$p2" = "$p1" ] || [ "$p2" = "$nginx_port" ]; do p2=$(free_port); done
  while [ "$pg_port" = "$p1" ] || [ "$pg_port" = "$p2" ] || [ "$pg_port" = "$nginx_port" ]; do pg_port=$(free_port); done
  local nginx_url="http://127.0.0.1:$nginx_port"

  STARTED=
  trap '[ -n "$STARTED" ] || { say "start failed: stopping what started"; tail_logs; stop_all >/dev/null 2>&1 || true; }' EXIT
  SOUK_DATABASE_URL=$(start_postgres "$pg_port")
  export SOUK_DATABASE_URL SOUK_DATA_DIR="$DIR/data"
  export SOUK_PUBLIC_URL="${SOUK_PUBLIC_URL:-$nginx_url}"
  export SOUK_TRUSTED_PROXIES="${SOUK_TRUSTED_PROXIES:-127.0.0.1/32}"
  mkdir -p "$SOUK_DATA_DIR"
  "$SOUK" migrate >"$DIR/migrate.log" 2>&1 9>&- || die "souk migrate failed (see above)"
  if [ -n "$demo" ]; then
    # demo.txt holds passwords: made owner-only before they are written (not with a umask, which
    # souk would inherit for the blob folders nginx must read).
    install -m 600 /dev/null "$DIR/demo.txt"
    "$SOUK" demo seed >>"$DIR/demo.txt" 2>&1 9>&- || { cat "$DIR/demo.txt" >&2; die "souk demo seed failed"; }
    say "demo catalog: passwords in $DIR/demo.txt"
    # Like `souk serve --demo`: the demo's paid app and plan sell without money, unless a
    # processor was chosen.
    export SOUK_PAYMENT_PROCESSOR="${SOUK_PAYMENT_PROCESSOR:-development}"
  fi
  start_souk 1 "$p1"
  start_souk 2 "$p2"
  wait_souk 1 "http://127.0.0.1:$p1"
  wait_souk 2 "http://127.0.0.1:$p2"
  if [ "$(id -u)" = 0 ] && id www-data >/dev/null 2>&1; then
    runuser -u www-data -- test -x "$SOUK_DATA_DIR/blobs" \
      || die "nginx's workers (www-data) cannot reach $SOUK_DATA_DIR/blobs: give its parent folders o+x"
  fi
  write_nginx_config "$nginx_port" "$p1" "$p2"
  start_nginx "$nginx_url"
  STARTED=1
  {
    echo "nginx $nginx_url"
    echo "souk 1 http://127.0.0.1:$p1"
    echo "souk 2 http://127.0.0.1:$p2"
    echo "SOUK_DATABASE_URL=$SOUK_DATABASE_URL"
    echo "SOUK_DATA_DIR=$SOUK_DATA_DIR"
  } >"$LINES"
  chmod 600 "$LINES"
  print_lines
}

case "${1:-}" in
  start|stop|status) ;;
  *) echo "usage: $0 start [--demo] | status | stop" >&2; exit 2 ;;
esac
mkdir -p "$DIR" "$RUN"
DIR=$(cd "$DIR" && pwd)
RUN="$DIR/run"
LINES="$DIR/cluster.txt"
chmod 755 "$DIR"   # PostgreSQL (postgres) and nginx's workers (www-data) reach their files through it
exec 9>"$DIR/.lock"
flock -w 300 9 || die "another scripts/cluster.sh holds $DIR/.lock"
case "$1" in
  start) shift; start_cluster "$@" ;;
  stop)
    stop_all
    say "stopped ($DIR)"
    ;;
  status)
    parts=$(running_parts)
    if [ "$parts" = "souk1 souk2 nginx postgres" ] && [ -s "$LINES" ]; then print_lines; else say "not running (alive: ${parts:-nothing})"; exit 1; fi
    ;;
esac
