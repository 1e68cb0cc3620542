#!/usr/bin/env bash
# SQLite end to end: workloads collected with `polysi-solve collect --db
# sqlite` on one database file (one connection per session, BEGIN IMMEDIATE
# for transactions that write, SQLITE_BUSY recorded as aborts), verdicts of
# `polysi-solve check`:
#   serializable (SQLite's only level) accepted under SER (and SI), with and
#                 without contention, with busy aborts recorded;
#   the header of each format names SQLite, its version and the level;
#   bad input: a level SQLite does not offer, a file that cannot be opened,
#   bad connection strings exit 2 with the message and leave no file;
#   SIGINT during a collection leaves a complete history marked PARTIAL (or
#   nothing), never a truncated file.
# Usage: run.sh [POLYSI_SOLVE] (default $PSI_CLI). Needs no server.
set -uo pipefail
cli=${1:-${PSI_CLI:-}}
[ -x "$cli" ] || { echo "usage: $0 POLYSI_SOLVE (or set PSI_CLI)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../support/collect_checks.sh
source "$here/../support/collect_checks.sh"

if ! "$cli" collect --help | grep -q "sqlite (enabled)"; then
    echo "FAIL: $cli was built without libsqlite3 (install libsqlite3-dev and reconfigure)" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/psi-sqlite.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
DB=(--db sqlite --conn "dbname=$work/test.db busy_timeout=200")

echo "== serializable accepted under SER and SI"
for seed in 1 2; do
    collect "ser$seed" serializable --sessions 4 --txns 30 --ops 6 --keys 20 --seed "$seed" && {
        expect "ser$seed" ser accept
        expect "ser$seed" si accept
    }
done

echo "== contended read-modify-writes (a short busy timeout: busy aborts recorded)"
# busy_timeout=1: a writer gives up on the lock after a millisecond, so
# SQLITE_BUSY aborts are recorded (a few percent of the attempts); the
# history, aborted attempts included, must still be accepted. Up to three
# runs, as the interleaving is the machine's.
DB=(--db sqlite --conn "dbname=$work/test.db busy_timeout=1")
busy=0
for seed in 1 2 3; do
    collect "rmw$seed" serializable --sessions 6 --txns 300 --ops 6 --keys 10 --mix rmw \
        --seed "$seed" 2>"$work/rmw.err" || { cat "$work/rmw.err" >&2; continue; }
    cat "$work/rmw.err"
    expect "rmw$seed" ser accept
    if grep -Eq ' [1-9][0-9]* lock timeouts' "$work/rmw.err"; then
        busy=1
        # the history holds them as aborted transactions (empty: BEGIN
        # IMMEDIATE is what was refused)
        "$cli" stats --json "$work/rmw$seed.hist" | grep -Eq '"aborted":[1-9]' ||
            fail "rmw$seed: the busy aborts are not in the history"
        break
    fi
done
[ $busy -eq 1 ] || fail "no SQLITE_BUSY abort was recorded in three contended runs"
DB=(--db sqlite --conn "dbname=$work/test.db busy_timeout=200")

echo "== the path alone is a connection string"
DB=(--db sqlite --conn "$work/plain.db")
collect plain serializable --sessions 2 --txns 5 --ops 3 --keys 5 && expect plain ser accept
DB=(--db sqlite --conn "dbname=$work/test.db busy_timeout=200")

echo "== the header names the database, its version and the level"
check_headers "SQLite 3" serializable

echo "== bad input: exit 2 with the message, no file"
bad_conn "a level SQLite does not offer" "SQLite offers no repeatable-read level" "${DB[@]}" \
    --level repeatable-read
bad_conn "a file that cannot be opened" "cannot open" --db sqlite \
    --conn "$work/no/such/folder/x.db" --level serializable
bad_conn "not a database" "not a database" --db sqlite --conn "$here/run.sh" --level serializable
bad_conn "unknown key" "takes no key 'host'" --db sqlite --conn "dbname=$work/x.db host=h" \
    --level serializable
bad_conn "bad busy_timeout" "busy_timeout takes milliseconds" --db sqlite \
    --conn "dbname=$work/x.db busy_timeout=soon" --level serializable
bad_conn "unknown database kind" "unknown database 'oracle'" --db oracle --conn x \
    --level serializable

echo "== SIGINT while collecting: a complete history marked PARTIAL, or nothing"
interrupt_collect ser serializable --sessions 3 --txns 100000 --ops 4 --keys 1000

finish "SQLite"
