# Throwaway PostgreSQL cluster for tests and benchmarks (sourced, bash).
#
#   pg_cluster_start    initdb into a fresh temporary folder, start a server
#                       on 127.0.0.1 at a free port (unix socket in the same
#                       folder), export PG_CONNINFO; cleanup registered on EXIT
#   pg_cluster_stop     stop the server and remove the folder (idempotent)
#
# Debian's server binaries live in /usr/lib/postgresql/VERSION/bin (package
# postgresql); PG_BINDIR overrides. initdb refuses to run as root, so as root
# the server runs as the `postgres` system user (created by the package)
# through runuser. Returns 77 (after a loud message) when the binaries are
# missing or cannot run at all, 1 when the cluster fails to start.

pg_cluster_dir=
pg_cluster_as=()

pg_cluster_skip() {
    echo "************************************************************" >&2
    echo "*** SKIPPED: $*" >&2
    echo "*** (Debian: apt-get install postgresql; ./dev.sh test installs it)" >&2
    echo "************************************************************" >&2
    return 77
}

pg_cluster_stop() {
    [ -n "$pg_cluster_dir" ] || return 0
    if [ -f "$pg_cluster_dir/data/postmaster.pid" ]; then
        "${pg_cluster_as[@]}" "$PG_BINDIR/pg_ctl" -D "$pg_cluster_dir/data" -m immediate -w stop \
            >/dev/null 2>&1 || true
    fi
    rm -rf "$pg_cluster_dir"
    pg_cluster_dir=
}

pg_cluster_start() {
    if [ -z "${PG_BINDIR:-}" ]; then
        PG_BINDIR=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    fi
    if [ -z "$PG_BINDIR" ] || [ ! -x "$PG_BINDIR/initdb" ] || [ ! -x "$PG_BINDIR/pg_ctl" ]; then
        pg_cluster_skip "PostgreSQL server binaries (initdb, pg_ctl) not found"
        return
    fi
    if [ "$(id -u)" -eq 0 ]; then
        if ! id postgres >/dev/null 2>&1 || ! command -v runuser >/dev/null; then
            pg_cluster_skip "running as root without a 'postgres' user (or runuser) to run initdb as"
            return
        fi
        pg_cluster_as=(runuser -u postgres --)
    fi
    if ! "${pg_cluster_as[@]}" "$PG_BINDIR/postgres" --version >/dev/null 2>&1; then
        pg_cluster_skip "$PG_BINDIR/postgres cannot run here"
        return
    fi
    pg_cluster_dir=$(mktemp -d "${TMPDIR:-/tmp}/psi-pg.XXXXXX")
    trap pg_cluster_stop EXIT
    trap 'pg_cluster_stop; exit 130' INT TERM
    [ ${#pg_cluster_as[@]} -eq 0 ] || chown postgres "$pg_cluster_dir"
    chmod 700 "$pg_cluster_dir"
    if ! "${pg_cluster_as[@]}" "$PG_BINDIR/initdb" -D "$pg_cluster_dir/data" -A trust -U psi \
        -E UTF8 --no-sync >"$pg_cluster_dir/initdb.log" 2>&1; then
        echo "initdb failed:" >&2
        cat "$pg_cluster_dir/initdb.log" >&2
        return 1
    fi
    local port tries
    for tries in 1 2 3 4 5 6 7 8; do
        port=$((20000 + (RANDOM % 20000)))
        # something already answers there: try another
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
        # fsync off and a short deadlock_timeout: a test cluster, thrown away
        if "${pg_cluster_as[@]}" "$PG_BINDIR/pg_ctl" -D "$pg_cluster_dir/data" \
            -l "$pg_cluster_dir/server.log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $pg_cluster_dir -c fsync=off -c full_page_writes=off -c deadlock_timeout=10ms -c max_connections=200" \
            start >/dev/null 2>&1; then
            export PG_CONNINFO="host=127.0.0.1 port=$port user=psi dbname=postgres"
            export PG_SOCKET_CONNINFO="host=$pg_cluster_dir port=$port user=psi dbname=postgres"
            return 0
        fi
        grep -q "could not bind\|already in use" "$pg_cluster_dir/server.log" 2>/dev/null || break
    done
    echo "could not start PostgreSQL; server log:" >&2
    cat "$pg_cluster_dir/server.log" >&2 || true
    return 1
}
