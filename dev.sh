#!/usr/bin/env bash
# One entry point for people and CI, on a fresh Debian 12 machine:
#   ./dev.sh run    install what is missing, build (Release), check the built-in example
#   ./dev.sh test   install what is missing, build with ASan+UBSan and the solver's debug
#                   checker (PSI_CHECK), run every test (CTest), check the installed
#                   library (static and shared), build Release with the tests (warnings
#                   are errors there too), fuzz each target briefly
#   ./dev.sh setup  only install what is missing
#   ./dev.sh build  only build the Release binary (build/release/polysi-solve)
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages needed to build and test. graphviz renders --dot output in
# tests; minisat is the reference solver the solver tests and benchmarks use.
PKGS_BUILD=(build-essential cmake libjudy-dev)
# The database client libraries of `collect --db postgres|mariadb|sqlite`
# (each optional to CMake; installed so the program has them all).
PKGS_BUILD+=(libpq-dev libmariadb-dev libsqlite3-dev)
PKGS_TEST=(libcmocka-dev graphviz minisat clang libclang-rt-14-dev)
# postgresql (server binaries) and libpq-dev: `collect` and its end-to-end test
# (tests/pg) on a throwaway cluster.
PKGS_TEST+=(postgresql libpq-dev)
# MariaDB's server binaries: tests/mariadb runs a throwaway server in a
# temporary folder (socket only, no networking), stopped at the end.
PKGS_TEST+=(mariadb-server)
# chromium and python3: tests/html/browser.sh renders the HTML report
# (check --html) in headless Chromium and checks its screenshot (python3's
# standard library decodes the PNG).
PKGS_TEST+=(chromium python3)
# pkg-config: the example is built against the installed library with
# nothing but `pkg-config polysi` (tests/install/run.sh).
PKGS_TEST+=(pkg-config)
# gnuplot: the benchmarks' plots (bench/scale/run.sh, bench/harness/plot.sh).
PKGS_TEST+=(gnuplot-nox)

missing_pkgs() {
    local p out=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out+=("$p")
    done
    echo "${out[@]:-}"
}

setup() {
    local want=("${PKGS_BUILD[@]}")
    [ "${1:-}" = test ] && want+=("${PKGS_TEST[@]}")
    local miss
    miss=$(missing_pkgs "${want[@]}")
    [ -z "$miss" ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        echo "dev.sh: installing $miss"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $miss >/dev/null
    else
        echo "dev.sh: missing Debian packages: $miss" >&2
        echo "dev.sh: install them with: sudo apt-get install -y $miss" >&2
        exit 2
    fi
}

jobs() { nproc 2>/dev/null || echo 2; }

build_release() {
    cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DPSI_TESTS=OFF >/dev/null
    cmake --build build/release -j"$(jobs)" --target polysi-solve
}

# The library as its users get it: installed from the Release build
# (static) and from a shared build, then used through pkg-config only
# (tests/install/run.sh: every header compiles alone, no libpq inside, the
# example rejects examples/lost-update.txt as a lost update).
install_check() {
    build_release
    tests/install/run.sh build/release build/install
    cmake -S . -B build/shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DPSI_TESTS=OFF >/dev/null
    cmake --build build/shared -j"$(jobs)" --target polysi-solve
    tests/install/run.sh build/shared build/install-shared
}

# Every configuration the README or CMake offers builds warning-free: the
# Release build with the tests too (GCC's -Wformat-truncation and the like
# only speak at -O2), built (about a minute of CPU). Of its tests only
# those too slow for the ASan run are run here (label whole_corpus: every
# corpus history through every writable format and back).
release_tests_build() {
    cmake -S . -B build/release-tests -DCMAKE_BUILD_TYPE=Release -DPSI_TESTS=ON >/dev/null
    cmake --build build/release-tests -j"$(jobs)"
    ctest --test-dir build/release-tests --output-on-failure -L whole_corpus
}

# A short libFuzzer run of every fuzz target (clang build in build/fuzz),
# two at a time, PSI_FUZZ_SECONDS each (60; 0 skips): fails on any crash,
# leak, sanitizer report or verdict disagreement. Long runs: README.md,
# "Hostile and huge input".
fuzz_short() {
    local secs=${PSI_FUZZ_SECONDS:-60}
    [ "$secs" -gt 0 ] || return 0
    CC=clang cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=Debug -DPSI_FUZZ=ON -DPSI_TESTS=OFF >/dev/null
    cmake --build build/fuzz -j"$(jobs)"
    echo "== fuzzing each target for $secs s"
    fuzz/run.sh build/fuzz "$secs"
}

case "${1:-}" in
setup)
    setup test
    ;;
build)
    setup
    build_release
    ;;
run)
    setup
    build_release
    echo "== polysi-solve check --isolation si examples/lost-update.txt"
    set +e
    build/release/polysi-solve check --isolation si examples/lost-update.txt
    rc=$?
    set -e
    echo "== exit code $rc (0 accept, 1 reject, 2 error)"
    [ "$rc" -le 1 ] || exit "$rc"
    ;;
test)
    setup test
    cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DPSI_SANITIZE=ON -DPSI_TESTS=ON \
        -DPSI_CHECK=ON >/dev/null
    cmake --build build/asan -j"$(jobs)"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build/asan --output-on-failure -j"$(jobs)"
    install_check
    echo "== Release build with the tests, and its whole-corpus round trips"
    release_tests_build
    fuzz_short
    ;;
*)
    echo "usage: ./dev.sh run|test|setup|build" >&2
    exit 2
    ;;
esac
