#!/bin/sh
# Counterexample sizes and interpretation times (issue 5's closing numbers):
#   - the three production violations of the PolySI artifact,
#   - every rejected Galera history of the VeriStrong corpus (expected.tsv),
#   - 100 rejected random histories from `polysi-solve generate` with faults.
# For each: transactions and dependencies of the counterexample, whether it
# is minimal, the anomaly named, and the interpretation time (the "seconds"
# of the JSON counterexample: restore + minimize + resolve + classify).
#
# usage: bench/interpret/sizes.sh [POLYSI_SOLVE] [CORPUS]   (needs python3)
# defaults: build/release/polysi-solve, ../shared/corpus
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$here/build/release/polysi-solve}
corpus=${2:-${PSI_CORPUS:-$here/../shared/corpus}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/rows.tsv
: >"$out"

row() { # GROUP NAME JSON-FILE
    python3 - "$1" "$2" "$3" >>"$out" <<'PY'
import json, sys
g, name, path = sys.argv[1:4]
d = json.load(open(path))
c = d.get("counterexample")
if d["verdict"] != "reject" or not c:
    print(f"{g}\t{name}\tACCEPT\t0\t0\t0\t-\t0"); sys.exit()
print(f"{g}\t{name}\t{c['anomaly']}\t{len(c['transactions'])}\t{len(c['edges'])}\t"
      f"{c['seconds']:.6f}\t{'yes' if c['minimal'] else 'no'}\t{c['solver_calls']}")
PY
}

check() { # GROUP NAME PATH
    "$bin" check --json "$3" >"$tmp/j.json" || [ $? -eq 1 ]
    row "$1" "$2" "$tmp/j.json"
}

v=$corpus/polysi-artifact/violations
check violations galera "$v/galera/galera.txt"
check violations yugabyte "$v/yugabyte/yugabyte.txt"
check violations dgraph "$v/dgraph/history.bincode"

g=$corpus/veristrong-artifact/si-galera-all-writes
while IFS="$(printf '\t')" read -r rel verdict; do
    [ "$verdict" = reject ] || continue
    check galera "$rel" "$g/$rel"
done <"$g/expected.tsv"

n=0 seed=0
while [ $n -lt 100 ]; do
    seed=$((seed + 1))
    "$bin" generate --faults lost-update,long-fork --sessions 4 --txns 10 --keys 5 \
        --seed $seed "$tmp/r.txt" 2>/dev/null
    if "$bin" check --json "$tmp/r.txt" >"$tmp/j.json"; then continue; fi
    row random "seed=$seed" "$tmp/j.json"
    n=$((n + 1))
done

echo "# group name anomaly txns edges seconds minimal solver_calls"
cat "$out"
python3 - "$out" <<'PY'
import sys, statistics as st, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = collections.defaultdict(list)
for r in rows:
    by[r[0]].append(r)
print("\n# summary per group: count, transactions min/median/max, dependencies min/median/max,"
      " seconds median/max, minimal, anomalies")
for g, rs in by.items():
    t = [int(r[3]) for r in rs]; e = [int(r[4]) for r in rs]; s = [float(r[5]) for r in rs]
    kinds = collections.Counter(r[2] for r in rs)
    print(f"{g}: n={len(rs)} txns {min(t)}/{st.median(t)}/{max(t)} "
          f"deps {min(e)}/{st.median(e)}/{max(e)} secs {st.median(s):.4f}/{max(s):.4f} "
          f"minimal {sum(r[6]=='yes' for r in rs)}/{len(rs)} "
          f"anomalies {dict(kinds)}")
PY
