#!/usr/bin/env bash
# Times the install and licence seeding of scripts/load.sh two ways on one migrated PostgreSQL
# database, side by side in ROUNDS rounds: with every index and constraint in place ("in place"),
# and with them taken off and put back after (indexes-off.sql / indexes-on.sql, what load.sh does).
# Numbers: docs/benchmarks.md, "Ten times more", item 7.
#
#   souk migrate (with SOUK_DATABASE_URL=URL) first, then
#   scripts/load/compare-seeding.sh URL [ACCOUNTS=200000] [PER_ACCOUNT=10]
#
# It empties accounts, installs and licenses (and what refers to them) of that database.
set -euo pipefail
cd "$(dirname "$0")/../.."
url="${1:?usage: compare-seeding.sh POSTGRES_URL}"
accounts="${ACCOUNTS:-200000}" per="${PER_ACCOUNT:-10}" rounds="${ROUNDS:-2}"
q() { psql -X -q -v ON_ERROR_STOP=1 "$url" "$@"; }
seconds() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }
q -c "SET client_min_messages = warning" -c "TRUNCATE installs, licenses, accounts CASCADE"
q -v n="$accounts" -f scripts/load/seed-accounts.sql
for round in $(seq "$rounds"); do
  for way in "in place" "off, then back"; do
    q -c "TRUNCATE installs, licenses"
    t=$(date +%s.%N)
    for table in installs licenses; do
      [ "$way" = "in place" ] || q -v table=$table -f scripts/load/indexes-off.sql
      q -v per="$per" -v free=2000 -f scripts/load/seed-$table.sql
      [ "$way" = "in place" ] || q -v table=$table -f scripts/load/indexes-on.sql
    done
    [ "$way" = "in place" ] || q -c "DROP TABLE load_deferred"
    echo "round $round, indexes $way: $(seconds "$t") s for $((accounts * per)) installs and as many licences"
  done
done
