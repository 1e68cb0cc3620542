# Throwaway MariaDB server for tests and benchmarks (sourced, bash).
#
#   mariadb_server_start   mariadb-install-db into a fresh temporary folder,
#                          start mariadbd with its socket in that folder and
#                          no networking, create database `psi` and user
#                          psi/secret, export MY_CONNINFO (a --conn string)
#                          and MY_DIR; cleanup registered on EXIT
#   mariadb_server_stop    stop the server and remove the folder (idempotent)
#
# The binaries come from Debian's mariadb-server (mariadb-install-db,
# mariadbd, mariadb-admin, mariadb). mariadbd refuses to run as root unless
# told to: as root it gets --user=root (the data folder is root's own and
# thrown away; no networking, so nothing but this machine's processes with
# access to the folder can reach it). Returns 77 (after a loud message)
# when the binaries are missing or cannot run, 1 when the server fails to
# start.

mariadb_server_dir=
mariadb_server_pid=

mariadb_server_skip() {
    echo "************************************************************" >&2
    echo "*** SKIPPED: $*" >&2
    echo "*** (Debian: apt-get install mariadb-server; ./dev.sh test installs it)" >&2
    echo "************************************************************" >&2
    return 77
}

mariadb_server_stop() {
    [ -n "$mariadb_server_dir" ] || return 0
    if [ -n "$mariadb_server_pid" ] && kill -0 "$mariadb_server_pid" 2>/dev/null; then
        mariadb-admin --no-defaults -S "$mariadb_server_dir/sock" -uroot shutdown \
            >/dev/null 2>&1 || kill "$mariadb_server_pid" 2>/dev/null
        local i
        for i in $(seq 100); do
            kill -0 "$mariadb_server_pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$mariadb_server_pid" 2>/dev/null || true
        wait "$mariadb_server_pid" 2>/dev/null || true
    fi
    rm -rf "$mariadb_server_dir"
    mariadb_server_dir=
    mariadb_server_pid=
}

mariadb_server_start() {
    local bin
    for bin in mariadb-install-db mariadbd mariadb-admin mariadb; do
        if ! command -v "$bin" >/dev/null && [ ! -x "/usr/sbin/$bin" ]; then
            mariadb_server_skip "MariaDB server binaries ($bin) not found"
            return
        fi
    done
    local mariadbd
    mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
    local as_root=()
    [ "$(id -u)" -eq 0 ] && as_root=(--user=root)
    if ! "$mariadbd" --no-defaults --version >/dev/null 2>&1; then
        mariadb_server_skip "$mariadbd cannot run here"
        return
    fi
    mariadb_server_dir=$(mktemp -d "${TMPDIR:-/tmp}/psi-mariadb.XXXXXX")
    trap mariadb_server_stop EXIT
    trap 'mariadb_server_stop; exit 130' INT TERM
    chmod 700 "$mariadb_server_dir"
    local d=$mariadb_server_dir
    if ! mariadb-install-db --no-defaults --auth-root-authentication-method=normal \
        --datadir="$d/data" --skip-test-db --user="$(id -un)" >"$d/install.log" 2>&1; then
        echo "mariadb-install-db failed:" >&2
        cat "$d/install.log" >&2
        return 1
    fi
    # A test server, thrown away: small buffers, no binary log, no flush
    # at commit, no doublewrite; deadlocks are detected at once anyway.
    "$mariadbd" --no-defaults "${as_root[@]}" --datadir="$d/data" --socket="$d/sock" \
        --skip-networking --pid-file="$d/pid" --log-error="$d/error.log" \
        --innodb-buffer-pool-size=64M --skip-log-bin --innodb-flush-log-at-trx-commit=0 \
        --innodb-doublewrite=0 --max-connections=300 >"$d/out.log" 2>&1 &
    mariadb_server_pid=$!
    local i
    for i in $(seq 300); do
        mariadb-admin --no-defaults -S "$d/sock" -uroot ping >/dev/null 2>&1 && break
        if ! kill -0 "$mariadb_server_pid" 2>/dev/null; then
            i=fail
            break
        fi
        sleep 0.1
    done
    if ! mariadb-admin --no-defaults -S "$d/sock" -uroot ping >/dev/null 2>&1; then
        echo "could not start MariaDB; error log:" >&2
        cat "$d/error.log" "$d/out.log" >&2 || true
        return 1
    fi
    if ! mariadb --no-defaults -S "$d/sock" -uroot -e \
        "CREATE DATABASE psi; CREATE USER psi@localhost IDENTIFIED BY 'secret';
         GRANT ALL ON psi.* TO psi@localhost;" >"$d/setup.log" 2>&1; then
        echo "could not create the test database:" >&2
        cat "$d/setup.log" >&2
        return 1
    fi
    export MY_DIR=$d
    export MY_CONNINFO="unix_socket=$d/sock user=psi password=secret dbname=psi"
    return 0
}
