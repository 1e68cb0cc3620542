#!/usr/bin/env bash
# The folders are the architecture (README.md, "Layout"): data flows
# core -> formats -> prune -> encode -> solver -> check -> interpret, and
# the programs around the library use it from outside. This test reads
# every #include of every .c/.h file and fails when one crosses a boundary,
# so the layout cannot drift one convenient include at a time.
#
#   tests/layout/check_layout.sh ROOT PUBLIC_HEADER...
#
# PUBLIC_HEADER... is PSI_PUBLIC_HEADERS of cmake/Install.cmake (CTest
# passes it). The rules, by the folder of the including file; a target is
# the folder of the included file, after resolving the include the way the
# compiler does (own folder first, then the project root; tests/ and fuzz/
# also see tests/ and fuzz/):
#
#   core/       core/
#   formats/    core/ formats/
#   prune/      core/ prune/
#   encode/     core/ prune/ encode/ solver/
#   check/      core/ prune/ encode/ solver/ check/   (it drives the solve
#               stage; reading files is the caller's job, so not formats/)
#   interpret/  core/ formats/ prune/ encode/ check/ interpret/ -- never
#               solver/: it reaches the solver through encode/
#   solver/     its own files only, by bare name ("sat.h"): it builds alone
#   workload/   core/ formats/ workload/
#   cli/        the library folders, workload/ and cli/
#   bench/      the library folders, workload/ and bench/
#   fuzz/       the library folders, workload/, tests/oracle/ and fuzz/
#   tests/      anything (tests exercise every unit, cli/ sources included)
#   examples/   only installed headers: polysi.h and PUBLIC_HEADER...
#   polysi.h    exactly PUBLIC_HEADER..., each once (the umbrella header)
# So no library folder includes workload/ (libpq), and nothing but tests/
# includes cli/, bench/ or tests/ (fuzz/ may use the oracle). A folder with
# sources and no rule here fails: a new folder states its place first.
#
# Also:
#   - every public header exists and includes only public headers (else the
#     installed tree does not compile);
#   - no .c/.h outside tests/ is longer than MAX_LINES (900): a file that
#     long holds more than one job and is split along them;
#   - tests reach the shared corpus only through tests/support/corpus.h
#     (a getenv("PSI_CORPUS") elsewhere would pass, not skip, without it).
#
# Build trees (any folder holding CMakeCache.txt, and /build*) and .git are
# not read. KNOWN_EXCEPTIONS are violations being removed right now: they
# print a warning instead of failing, and a note once they are gone.
set -euo pipefail
root=${1:?usage: check_layout.sh ROOT PUBLIC_HEADER...}
shift
root=$(cd "$root" && pwd)
public=("$@")
MAX_LINES=900

LIBRARY="core formats prune encode solver check interpret"
declare -A ALLOWED=(
    [core]="core"
    [formats]="core formats"
    [prune]="core prune"
    [encode]="core prune encode solver"
    [check]="core prune encode solver check"
    [interpret]="core formats prune encode check interpret"
    [solver]="solver"
    [workload]="core formats workload"
    [cli]="$LIBRARY workload cli"
    [bench]="$LIBRARY workload bench"
    [fuzz]="$LIBRARY workload tests/oracle fuzz"
)

# "FILE FOLDER": FILE may include from FOLDER for now (warning, not failure).
KNOWN_EXCEPTIONS=(
)

failures=0
fail() {
    echo "layout: FAIL: $*"
    failures=$((failures + 1))
}

declare -A is_public=()
for h in "${public[@]}"; do
    is_public[$h]=1
done

# Every .c/.h of the project, relative to root, outside build trees.
sources=()
while IFS= read -r f; do
    sources+=("${f#./}")
done < <(cd "$root" && find . \( -name .git -o -path './build*' -o \
    -exec test -e '{}/CMakeCache.txt' \; \) -prune -o -type f \( -name '*.c' -o -name '*.h' \) \
    -print | sort)

# resolve FILE INCLUDE QUOTED: sets target to the project path the include
# names, or to nothing for a header from outside the project (<stdio.h>,
# <cmocka.h>). No subshell: this runs for every include.
resolve() {
    local file=$1 inc=$2 quoted=$3 cand
    local tries=()
    if [ "$quoted" = 1 ]; then
        case $file in
        */*) tries+=("${file%/*}/$inc") ;;
        *) tries+=("$inc") ;;
        esac
    fi
    tries+=("$inc")
    case $file in
    tests/* | fuzz/*) tries+=("tests/$inc" "fuzz/$inc") ;;
    esac
    for cand in "${tries[@]}"; do
        if [ -f "$root/$cand" ]; then
            case $cand in
            *./*) target=$(realpath -m --relative-to="$root" "$root/$cand") ;; # a/../b
            *) target=$cand ;;
            esac
            return
        fi
    done
    target=
}

# folder_of PATH: sets to the folder a project path belongs to, as the
# rules name it.
folder_of() {
    case $1 in
    tests/oracle/*) to=tests/oracle ;;
    */*) to=${1%%/*} ;;
    *) to=$1 ;;
    esac
}

is_exception() {
    local e
    for e in "${KNOWN_EXCEPTIONS[@]}"; do
        [ "$e" = "$1 $2" ] && return 0
    done
    return 1
}

declare -A exception_seen=()
declare -A umbrella=()
declare -A no_rule=()
# Every line of every source that includes something, as
# "FILE<TAB>LINE<TAB>Q<TAB>NAME" (Q: 1 for ""), from one grep: a grep and
# two seds per file cost 1,500 processes, minutes of wall time on a busy
# machine.
while IFS=$'\t' read -r f line quoted inc; do
    [ -n "$inc" ] || continue
    [ -z "${no_rule[$f]:-}" ] || continue
    from=${f%%/*} # the top folder: tests/oracle/ files follow tests/'s rule
    resolve "$f" "$inc" "$quoted"
    if [ -z "$target" ]; then
        # Unresolved but spelled like a project path: a dangling include.
        case ${inc%%/*} in
        core | formats | prune | encode | solver | check | interpret | workload | cli | bench)
            fail "$f:$line includes \"$inc\", which does not exist"
            ;;
        esac
        continue
    fi
    folder_of "$target"
    where="$f:$line includes $inc"
    if [ "$f" = polysi.h ]; then
        [ -n "${is_public[$target]:-}" ] ||
            fail "$where: the umbrella header includes only public headers (cmake/Install.cmake)"
        [ -z "${umbrella[$target]:-}" ] || fail "$where twice"
        umbrella[$target]=1
        continue
    fi
    if [ -n "${is_public[$f]:-}" ] && [ -z "${is_public[$target]:-}" ]; then
        fail "$where: a public header includes only public headers; add $target to PSI_PUBLIC_HEADERS (cmake/Install.cmake) and polysi.h, or stop including it"
    fi
    case $from in
    tests) continue ;;
    examples)
        [ "$target" = polysi.h ] || [ -n "${is_public[$target]:-}" ] ||
            fail "$where: examples use only installed headers (polysi.h, PSI_PUBLIC_HEADERS)"
        continue
        ;;
    solver)
        case $inc in
        */*) fail "$where: solver/ includes its own files by bare name (it builds alone)" ;;
        esac
        ;;
    esac
    allowed=${ALLOWED[$from]:-}
    if [ -z "$allowed" ]; then
        fail "$f: folder $from/ has no layout rule (tests/layout/check_layout.sh)"
        no_rule[$f]=1
        continue
    fi
    if [[ " $allowed " != *" $to "* ]]; then
        if is_exception "$f" "$to"; then
            echo "layout: warning: $where: $from/ may not include $to/ (known exception, being removed)"
            exception_seen["$f $to"]=1
        else
            fail "$where: $from/ may include only $allowed"
        fi
    fi
done < <(cd "$root" &&
    grep -n -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]+[">]' -- "${sources[@]}" |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*(["<])([^">]+)[">].*/\1\t\2\t\3\t\4/' |
    sed -E 's/\t"\t/\t1\t/; s/\t<\t/\t0\t/')

for e in "${KNOWN_EXCEPTIONS[@]}"; do
    [ -n "${exception_seen[$e]:-}" ] ||
        echo "layout: note: known exception '$e' no longer occurs: remove it from KNOWN_EXCEPTIONS"
done

# Public headers: they exist, and polysi.h includes each of them.
for h in "${public[@]}"; do
    if [ ! -f "$root/$h" ]; then
        fail "public header $h (cmake/Install.cmake) does not exist"
    elif [ -z "${umbrella[$h]:-}" ]; then
        fail "polysi.h does not include the public header $h"
    fi
done

# File sizes, from one wc (not one per file).
sized=()
for f in "${sources[@]}"; do
    case $f in
    tests/*) ;;
    *) sized+=("$f") ;;
    esac
done
while read -r n f; do
    [ "$f" != total ] || continue
    [ "$n" -le "$MAX_LINES" ] ||
        fail "$f has $n lines (at most $MAX_LINES outside tests/): split it along its jobs"
done < <(cd "$root" && wc -l -- "${sized[@]}")

# The corpus, through tests/support/corpus.h only.
while IFS= read -r hit; do
    fail "$hit: tests read PSI_CORPUS only through tests/support/corpus.h (psi_corpus)"
done < <(cd "$root" && grep -rn --include='*.c' --include='*.h' 'getenv("PSI_CORPUS")' tests |
    grep -v '^tests/support/corpus.h:')

if [ "$failures" -gt 0 ]; then
    echo "layout: $failures violation(s) in ${#sources[@]} files"
    exit 1
fi
echo "layout: ${#sources[@]} files follow the rules"
