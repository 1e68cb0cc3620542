# Checks the database end-to-end tests share (sourced by tests/pg,
# tests/mariadb, tests/sqlite run.sh, bash). The caller sets:
#   cli    the polysi-solve under test
#   work   a scratch folder
#   DB     the collect options naming the database: (--db NAME --conn CONNINFO)
# and reads `fails` at the end (finish).

fails=0
last_anomaly=
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# collect NAME LEVEL [workload options]: writes $work/NAME.hist
collect() {
    local name=$1 level=$2
    shift 2
    if ! "$cli" collect "${DB[@]}" --level "$level" "$@" "$work/$name.hist"; then
        fail "collect $name ($level) failed"
        return 1
    fi
}

# verdict NAME ISOLATION: prints accept, reject or error
verdict() {
    "$cli" check --isolation "$2" "$work/$1.hist" >/dev/null
    case $? in
    0) echo accept ;;
    1) echo reject ;;
    *) echo error ;;
    esac
}

# expect NAME ISOLATION accept|reject
expect() {
    local name=$1 iso=$2 want=$3 got
    got=$(verdict "$name" "$iso")
    echo "$name under $iso: $got (want $want)"
    if [ "$got" != "$want" ]; then
        fail "$name under $iso: $got, expected $want"
        "$cli" check --isolation "$iso" "$work/$name.hist" | head -40 >&2
    fi
}

# expect_reject_named NAME ISOLATION: rejected, with a named anomaly (a
# graph-free one's kind, or the counterexample's); sets last_anomaly.
expect_reject_named() {
    local name=$1 iso=$2 json code reason
    json=$("$cli" check --json --isolation "$iso" "$work/$name.hist")
    code=$?
    last_anomaly=
    if [ $code -ne 1 ]; then
        fail "$name under $iso: exit $code, expected a reject"
        return 1
    fi
    last_anomaly=$(grep -o '"kind":"[^"]*"' <<<"$json" | head -1 | cut -d'"' -f4)
    [ -n "$last_anomaly" ] ||
        last_anomaly=$(grep -o '"anomaly":"[^"]*"' <<<"$json" | head -1 | cut -d'"' -f4)
    reason=$(grep -o '"reason":"[^"]*"' <<<"$json" | head -1 | cut -d'"' -f4)
    echo "$name under $iso: reject (reason $reason, anomaly ${last_anomaly:-?})"
    if [ -z "$last_anomaly" ]; then
        fail "$name: rejected without a named anomaly"
        "$cli" check --isolation "$iso" "$work/$name.hist" | head -20 >&2
    fi
}

# check_headers TITLE LEVEL: a small history in each format carries the
# database's name and version (TITLE is its start), the level and
# "complete" in its header, and reads back.
check_headers() {
    local title=$1 level=$2 f
    for f in dbcop text edn; do
        collect "hdr-$f" "$level" --sessions 2 --txns 3 --ops 2 --keys 4 --format "$f" || continue
        if ! head -c 600 "$work/hdr-$f.hist" | grep -aq "polysi-solve collect: $title.*level $level.*complete"; then
            fail "$f header does not name $title, level $level and complete"
            head -c 300 "$work/hdr-$f.hist" >&2
        fi
        [ "$(verdict "hdr-$f" ser)" = accept ] || fail "hdr-$f does not read back as an accepted history"
    done
    echo "headers name $title, $level, complete (dbcop info, text '#', EDN ';')"
}

# bad_conn WHAT MESSAGE COLLECT-OPTIONS...: collect exits 2, says MESSAGE,
# leaves no file.
bad_conn() {
    local what=$1 msg=$2 out=$work/bad.hist
    shift 2
    rm -f "$out"
    "$cli" collect "$@" --sessions 2 --txns 2 --ops 2 --keys 4 "$out" 2>"$work/bad.err"
    local code=$?
    if [ $code -ne 2 ]; then
        fail "$what: exit $code, expected 2"
    elif ! grep -qF -- "$msg" "$work/bad.err"; then
        fail "$what: the message does not say '$msg':"
        cat "$work/bad.err" >&2
    else
        echo "$what: exit 2, $(head -1 "$work/bad.err")"
    fi
    if [ -e "$out" ] || compgen -G "$out.*" >/dev/null; then
        fail "$what: left a file behind: $(ls "$out"*)"
        rm -f "$out"*
    fi
}

# interrupt_collect ISOLATION LEVEL WORKLOAD...: SIGINT a second into a
# collection too long to finish by then: exit 130 and a complete history
# whose header says PARTIAL, accepted under ISOLATION, or exit 130 and no
# file at all; never a truncated file or a temporary one left behind.
interrupt_collect() {
    local iso=$1 level=$2 out=$work/int.hist
    shift 2
    rm -f "$out"
    # set -m: the collector gets its own process group, and SIGINT is not
    # ignored as it is for a background job of a non-interactive shell
    set -m
    "$cli" collect "${DB[@]}" --level "$level" "$@" "$out" 2>"$work/int.err" &
    local pid=$!
    set +m
    sleep "${PSI_INTERRUPT_AFTER:-1.5}"
    kill -INT "$pid"
    wait "$pid"
    local code=$?
    echo "interrupted collect: exit $code: $(grep -v '^$' "$work/int.err" | tail -1)"
    if [ $code -ne 130 ]; then
        fail "interrupted collect: exit $code, expected 130"
        cat "$work/int.err" >&2
    elif [ -e "$out" ]; then
        head -c 600 "$out" | grep -aq "PARTIAL: interrupted after" ||
            fail "the interrupted history's header does not say PARTIAL"
        local v
        v=$(verdict int "$iso")
        echo "the partial history under $iso: $v"
        [ "$v" = accept ] || fail "the partial history is not an accepted, complete history ($v)"
    else
        grep -q "nothing written" "$work/int.err" || fail "no history and no 'nothing written'"
    fi
    if compgen -G "$out.*" >/dev/null; then
        fail "interrupted collect left a temporary file: $(ls "$out".*)"
    fi
}

# finish TITLE [LOG]: the verdict of the whole test
finish() {
    if [ "$fails" -ne 0 ]; then
        echo "$fails failure(s)" >&2
        if [ -n "${2:-}" ] && [ -f "$2" ]; then
            echo "server log tail:" >&2
            tail -20 "$2" >&2
        fi
        exit 1
    fi
    echo "all $1 checks passed"
}
