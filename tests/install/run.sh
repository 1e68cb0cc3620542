#!/usr/bin/env bash
# Checks libpolysi as a user gets it: installed, then used through
# pkg-config alone, with no path into the source tree.
#
#   tests/install/run.sh BUILD_DIR PREFIX
#
# BUILD_DIR is a configured and built tree (./dev.sh test uses the Release
# build, static, and a shared one); PREFIX is emptied first. It
#  1. runs `cmake --install BUILD_DIR --prefix PREFIX`;
#  2. compiles every installed header on its own as strict C17 with only
#     pkg-config's flags, so a public header that includes a header that is
#     not installed, or leans on the project's build flags, fails here;
#  3. checks that libpolysi carries neither libpq nor the workload code;
#  4. copies examples/check_history.c and its Makefile to a scratch folder,
#     builds them there with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, and
#     requires exit 1 and "anomaly: lost update" on examples/lost-update.txt;
#  5. runs the installed polysi-solve on the same history (exit 1).
set -euo pipefail
build=${1:?usage: tests/install/run.sh BUILD_DIR PREFIX}
prefix=${2:?usage: tests/install/run.sh BUILD_DIR PREFIX}
src=$(cd "$(dirname "$0")/../.." && pwd)
history=$src/examples/lost-update.txt
CC=${CC:-cc}

fail() {
    echo "install check: $*" >&2
    exit 1
}

rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
prefix=$(cd "$prefix" && pwd)
pcdir=$(dirname "$(find "$prefix" -name polysi.pc -print -quit)")
[ -f "$pcdir/polysi.pc" ] || fail "no polysi.pc under $prefix"
export PKG_CONFIG_PATH=$pcdir
cflags=$(pkg-config --cflags polysi)
libdir=$(cd "$pcdir/.." && pwd)

# 2. Every installed header compiles alone.
n=0
while IFS= read -r h; do
    rel=${h#"$prefix"/include/polysi/}
    # shellcheck disable=SC2086
    echo "#include <$rel>" | "$CC" -std=c17 -Wall -Wextra -Wpedantic -Werror $cflags \
        -fsyntax-only -x c - || fail "installed header $rel does not compile on its own"
    n=$((n + 1))
done < <(find "$prefix/include/polysi" -name '*.h' | sort)
echo "install check: $n installed headers compile on their own"

# 3. No database client, no workload generator in the library.
lib=$(find "$libdir" -maxdepth 1 -name 'libpolysi.*' ! -type l -print -quit)
[ -n "$lib" ] || fail "no libpolysi in $libdir"
if nm -A "$lib" 2>/dev/null | grep -E ' [TU] (PQ[a-zA-Z]*|mysql_[a-z_]*|sqlite3_[a-z_0-9]*|psi_generate|psi_collect|psi_db_[a-z_]*)$'; then
    fail "$lib links libpq or workload code"
fi
case $lib in
*.so*) if readelf -d "$lib" | grep -Eq 'NEEDED.*(libpq|libmariadb|libsqlite3)'; then fail "$lib needs a database client"; fi ;;
esac

# 4. The example, built from a copy with pkg-config only.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/examples/check_history.c" "$src/examples/Makefile" "$work/"
make -s -C "$work" check_history
set +e
out=$(LD_LIBRARY_PATH=$libdir "$work/check_history" "$history")
rc=$?
set -e
echo "$out"
[ "$rc" -eq 1 ] || fail "check_history $history: exit $rc, want 1 (reject)"
grep -q '^anomaly: lost update$' <<<"$out" || fail "check_history did not name the lost update"

# 5. The installed program.
set +e
"$prefix/bin/polysi-solve" check "$history" >/dev/null
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "installed polysi-solve check $history: exit $rc, want 1"
echo "install check: $(basename "$lib") from $prefix: example and polysi-solve reject $history"
