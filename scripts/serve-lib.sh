# Shared by scripts/smoke.sh, scripts/e2e-device.sh and scripts/browser-tests.sh: source it after
# setting SOUK, WORK and NAME, then `trap cleanup EXIT` (or a trap that ends with `cleanup`), and
# call `finish` as the script's last step.
#
# No process is left behind: `start` records each server's pid in $WORK/.pids (a file, so that it
# reaches `cleanup` whatever shell recorded it), and every process a script starts inherits
# SOUK_TEST_RUN, a mark unique to the run, which `finish` looks for in /proc at the end.
PIDS=()
STARTED_LOG=
STUBBORN=
export SOUK_TEST_RUN="$NAME-$$-$RANDOM$RANDOM"
: >"$WORK/.pids"

fail() { echo "$NAME: FAIL: $*" >&2; for f in "$WORK"/*.log; do [ -e "$f" ] || continue; echo "--- $f" >&2; tail -20 "$f" >&2; done; exit 1; }

# Records a background process for `cleanup`.
track() { PIDS+=("$1"); echo "$1" >>"$WORK/.pids"; }

# Starts `souk serve` with the given arguments on START_PORT (default: a free port) and sets the
# variable named $1 to its base URL: `start BASE --demo`, then use "$BASE". It must run in the
# script's own shell, never inside $(…), or the server would escape `cleanup`. STARTED_LOG names
# the server's log. It returns once the server is ready (/health/ready answers 200: its in-memory
# indexes are loaded), as a balancer would wait before sending it traffic.
start() {
  [ "$BASHPID" = "$$" ] || { echo "$NAME: start must not run in a subshell such as \$(start …)" >&2; exit 1; }
  local var=$1 log pid
  shift
  log=$(mktemp "$WORK/serve-$var-XXXXXX.log")
  (cd "$WORK" && exec "$SOUK" serve --port "${START_PORT:-0}" "$@") >"$log" 2>&1 &
  pid=$!
  track "$pid"
  echo "$pid $log" >>"$WORK/.logs"
  STARTED_LOG=$log
  for _ in $(seq 1 150); do
    if grep -q 'Souk is listening on' "$log"; then
      printf -v "$var" '%s' "$(grep -o 'Souk is listening on https\{0,1\}://[0-9.:]*' "$log" | awk '{print $5}')"
      for _ in $(seq 1 300); do
        [ "$(curl -sk -o /dev/null -w '%{http_code}' "${!var}/health/ready")" = 200 ] && return 0
        running "$pid" || fail "server exited while loading its indexes: $*"
        sleep 0.2
      done
      fail "server did not become ready (/health/ready) within 60 s: $*"
    fi
    running "$pid" || fail "server exited while starting: $*"
    sleep 0.2
  done
  fail "server did not start: $*"
}

# True while process $1 exists and is not a zombie (an exited child not yet waited for).
running() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Stops every recorded process: SIGTERM, up to STOP_SECONDS (15) to exit, then SIGKILL. Sets
# STUBBORN to the pids that needed SIGKILL.
stop_started() {
  local pids pid log
  pids=$(sort -u "$WORK/.pids" 2>/dev/null) || return 0
  STUBBORN=
  [ -n "$pids" ] || return 0
  for pid in $pids; do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 $((${STOP_SECONDS:-15} * 5))); do
    local alive=
    for pid in $pids; do running "$pid" && alive=1; done
    [ -n "$alive" ] || break
    sleep 0.2
  done
  for pid in $pids; do
    if running "$pid"; then STUBBORN="$STUBBORN $pid"; kill -KILL "$pid" 2>/dev/null || true; fi
  done
  local status
  for pid in $pids; do
    status=0
    wait "$pid" 2>/dev/null || status=$?
    # A process that crashed while stopping (a Swift trap is SIGILL, 132; also SIGTRAP, SIGABRT,
    # SIGBUS, SIGSEGV) says so here, with the end of its log, before cleanup removes WORK. SIGTERM's
    # own end (143) and a SIGKILL (137: a stubborn process, or a fake killed on purpose) are no crash.
    case "$status" in
    132|133|134|135|139)
      echo "$NAME: process $pid crashed (signal $((status - 128))) while stopping" >&2
      log=$(awk -v p="$pid" '$1 == p {print $2}' "$WORK/.logs" 2>/dev/null || true)
      [ -z "$log" ] || tail -40 "$log" >&2
      ;;
    esac
  done
  : >"$WORK/.pids"
}

# Pids of live processes carrying this run's SOUK_TEST_RUN mark, other than this shell.
leftovers() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    { [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ]; } && continue
    if grep -qzx "SOUK_TEST_RUN=$SOUK_TEST_RUN" "$environ" 2>/dev/null && running "$pid"; then
      echo "$pid"
    fi
  done
}

# The EXIT trap: stops what was started, kills anything else of this run, removes WORK.
cleanup() {
  stop_started
  local left
  left=$(leftovers)
  [ -z "$left" ] || kill -KILL $left 2>/dev/null || true
  rm -rf "$WORK"
}

# The end of a passing run: stops the servers and fails if one needed SIGKILL or if any process
# this run started (a server, a browser, a driver) is still alive.
finish() {
  stop_started
  [ -z "$STUBBORN" ] || fail "did not stop within ${STOP_SECONDS:-15} s of SIGTERM:$STUBBORN"
  local left
  # A browser's helper processes may take a moment to exit after their driver quit.
  for _ in $(seq 1 25); do
    left=$(leftovers)
    [ -n "$left" ] || break
    sleep 0.2
  done
  if [ -n "$left" ]; then
    ps -o pid,ppid,etime,args -p "$(echo $left | tr ' ' ,)" >&2 || true
    fail "processes left behind: $(echo $left)"
  fi
}

status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# A fresh PostgreSQL database named $1 on SOUK_TEST_POSTGRES_URL; prints its URL.
postgres_database() {
  psql "$SOUK_TEST_POSTGRES_URL" -qc "CREATE DATABASE $1" >/dev/null
  python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$SOUK_TEST_POSTGRES_URL" "$1"
}
