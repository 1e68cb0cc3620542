#!/usr/bin/env bash
# MariaDB end to end: a throwaway server (mariadb_server.sh), workloads
# collected with `polysi-solve collect --db mariadb`, verdicts of
# `polysi-solve check`:
#   REPEATABLE READ under a contended read-modify-write workload: rejected
#                   under SI, with a lost update named (MariaDB's REPEATABLE
#                   READ has no first-committer-wins: an UPDATE overwrites a
#                   row changed since the transaction's snapshot);
#   SERIALIZABLE    accepted under SER (and SI);
#   REPEATABLE READ with the server's innodb_snapshot_isolation=ON: error
#                   1020 recorded as serialization failures, accepted under SI;
#   the header of each format names the database, its version and the level;
#   bad input: wrong credentials, an unreachable server, an unknown database,
#   bad connection strings exit 2 with the server's message and leave no
#   file; SIGINT during a collection leaves a complete history marked
#   PARTIAL (or nothing), never a truncated file.
# Usage: run.sh [POLYSI_SOLVE] (default $PSI_CLI). Exit 77 = skipped (only
# when the server binaries cannot run at all; the message says so loudly).
set -uo pipefail
cli=${1:-${PSI_CLI:-}}
[ -x "$cli" ] || { echo "usage: $0 POLYSI_SOLVE (or set PSI_CLI)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=mariadb_server.sh
source "$here/mariadb_server.sh"
# shellcheck source=../support/collect_checks.sh
source "$here/../support/collect_checks.sh"

if ! "$cli" collect --help | grep -q "mariadb (enabled)"; then
    echo "FAIL: $cli was built without libmariadb (install libmariadb-dev and reconfigure)" >&2
    exit 1
fi
mariadb_server_start
rc=$?
[ $rc -eq 0 ] || exit $rc
work=$MY_DIR/work
mkdir -p "$work"
DB=(--db mariadb --conn "$MY_CONNINFO")

# Contention: 6 sessions, read-modify-writes on 10 keys.
W=(--sessions 6 --txns 30 --ops 6 --keys 10 --mix rmw)

echo "== REPEATABLE READ under contended read-modify-writes: rejected under SI, lost update"
lost=0
for seed in 1 2 3; do
    collect "rr$seed" repeatable-read "${W[@]}" --seed "$seed" || continue
    expect_reject_named "rr$seed" si
    [ "$last_anomaly" = "lost update" ] && lost=$((lost + 1))
done
echo "lost update named in $lost of 3 REPEATABLE READ histories"
[ $lost -ge 1 ] || fail "no REPEATABLE READ history was rejected with a lost update"

echo "== SERIALIZABLE accepted under SER and SI"
for seed in 1 2; do
    collect "ser$seed" serializable "${W[@]}" --seed "$seed" && {
        expect "ser$seed" ser accept
        expect "ser$seed" si accept
    }
done

echo "== the header names the database, its version and the level"
check_headers "MariaDB 10" serializable

echo "== bad input: exit 2 with the server's message, no file"
bad_conn "wrong password" "Access denied" --db mariadb \
    --conn "unix_socket=$MY_DIR/sock user=psi password=wrong dbname=psi" --level serializable
bad_conn "unreachable server" "Can't connect" --db mariadb \
    --conn "unix_socket=$MY_DIR/nosuch.sock user=psi password=secret dbname=psi" \
    --level serializable
bad_conn "a database the user may not use" "database 'nosuch'" --db mariadb \
    --conn "unix_socket=$MY_DIR/sock user=psi password=secret dbname=nosuch" --level serializable
bad_conn "no dbname" "dbname=NAME" --db mariadb \
    --conn "unix_socket=$MY_DIR/sock user=psi password=secret" --level serializable
bad_conn "unknown key" "takes no key 'sslmode'" --db mariadb \
    --conn "$MY_CONNINFO sslmode=require" --level serializable
bad_conn "unterminated quote" "unterminated quote" --db mariadb \
    --conn "user='psi" --level serializable
bad_conn "unknown level" "unknown level 'snapshot'" "${DB[@]}" --level snapshot

echo "== SIGINT while collecting: a complete history marked PARTIAL, or nothing"
interrupt_collect ser serializable --sessions 4 --txns 100000 --ops 4 --keys 1000

echo "== REPEATABLE READ with innodb_snapshot_isolation=ON: accepted under SI"
# The server variable makes an UPDATE of a row changed since the snapshot
# fail with error 1020 (first-committer-wins), which the driver records as a
# serialization failure: no lost update is left.
if mariadb --no-defaults -S "$MY_DIR/sock" -uroot \
    -e "SET GLOBAL innodb_snapshot_isolation=ON" 2>"$work/var.err"; then
    collect rrsi repeatable-read "${W[@]}" --seed 1 2>"$work/rrsi.err" && {
        cat "$work/rrsi.err"
        grep -Eq '\([1-9][0-9]* serialization failures' "$work/rrsi.err" ||
            fail "no serialization failure (error 1020) recorded with innodb_snapshot_isolation=ON"
        expect rrsi si accept
    }
    mariadb --no-defaults -S "$MY_DIR/sock" -uroot -e "SET GLOBAL innodb_snapshot_isolation=OFF"
else
    echo "(this server has no innodb_snapshot_isolation: $(cat "$work/var.err"))"
fi

finish "MariaDB" "$MY_DIR/error.log"
