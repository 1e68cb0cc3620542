# Sourced by bench/order/*.sh (from the repository's root): sets bin to
# the polysi-solve to measure, PSI_BENCH_BIN (an already built Release
# binary) when set, else build/release, built now.
if [ -n "${PSI_BENCH_BIN:-}" ]; then
    bin=$PSI_BENCH_BIN
else
    cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DPSI_TESTS=OFF >/dev/null
    cmake --build build/release -j2 --target polysi-solve >/dev/null
    bin=$PWD/build/release/polysi-solve
fi
