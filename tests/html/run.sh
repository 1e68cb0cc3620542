#!/usr/bin/env bash
# check --html: one history and a batch (a reject, an accept, an error), with
# the drawing by Graphviz and by our own layout (POLYSI_DOT naming a program
# that does not exist), checked for what the report must hold: the summary
# table's rows, verdicts and anomalies, per reject the inline SVG, legend and
# transactions with their operations, per accept the stage timings, an
# error's message; nothing external (no script, nothing fetched); an
# unwritable --html path fails at once with exit 2 and no file.
# Usage: run.sh POLYSI_SOLVE LOST_UPDATE_TXT
set -uo pipefail
cli=$1
lost=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/psi-html.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# has FILE WHAT PATTERN (grep -E)
has() { grep -Eq -- "$3" "$1" || fail "$(basename "$1"): no $2 (/$3/)"; }
hasnt() { ! grep -Eiq -- "$3" "$1" || fail "$(basename "$1"): has $2: $(grep -Eio -- "$3" "$1" | head -1)"; }

"$cli" generate --sessions 3 --txns 10 --ops 4 --keys 8 --seed 7 --format dbcop "$work/ok.dbcop" \
    2>/dev/null || fail "generate failed"

# Nothing in the page may reach outside it: no script, no fetched resource.
self_contained() {
    hasnt "$1" "a script" '<script'
    hasnt "$1" "a fetched resource" '(src|href)="(https?:|//)|url\((https?:)?//|@import'
    hasnt "$1" "an external stylesheet" '<link rel="stylesheet"'
}

echo "== one history: a reject"
"$cli" check --html "$work/one.html" "$lost" >/dev/null
code=$?
[ $code -eq 1 ] || fail "check --html of a reject: exit $code, expected 1"
f=$work/one.html
has "$f" "doctype" '^<!DOCTYPE html>'
has "$f" "summary table" '<table class="summary"'
has "$f" "REJECT badge" 'class="badge rej">REJECT<'
has "$f" "lost update in the summary" '<td>lost update</td>'
has "$f" "inline SVG" '<svg[^>]*>'
has "$f" "legend" 'class="legend"'
has "$f" "transactions table" '<table class="txns">'
has "$f" "operations" '<code>w\(0,[0-9]+\)</code>'
has "$f" "text report" '<summary>The text report</summary>'
has "$f" "end" '</html>'
self_contained "$f"
if command -v dot >/dev/null; then
    has "$f" "Graphviz drawing" 'laid out by Graphviz \(dot\)'
else
    echo "(Graphviz not installed: the drawing is ours)"
fi

echo "== a batch, our own layout: reject, accept, error"
POLYSI_DOT=/nonexistent/dot "$cli" check --html "$work/batch.html" "$lost" "$work/ok.dbcop" \
    "$work/nosuch.txt" >/dev/null 2>&1
code=$?
[ $code -eq 2 ] || fail "batch with an error: exit $code, expected 2"
f=$work/batch.html
n=$(grep -c '^<tr><td class="num">' "$f")
[ "$n" -eq 3 ] || fail "batch.html: $n summary rows, expected 3"
has "$f" "our layout" "laid out by polysi-solve's layered layout"
has "$f" "counts" '3 histories checked: <span class="badge acc">1 accepted</span> <span class="badge rej">1 rejected</span> <span class="badge err">1 error</span>'
has "$f" "ACCEPT section" '<p class="verdict acc"><span class="badge">ACCEPT</span> the history satisfies SI'
has "$f" "stage timings" '<tr><td>solve</td><td>[0-9.]+</td></tr>|<tr><td>prune</td><td>[0-9.]+</td></tr>'
has "$f" "the error's message" 'nosuch.txt.*cannot open'
has "$f" "arrow markers with ids of their own" '<marker id="cx1-k"'
has "$f" "a box per transaction" '<rect x='
has "$f" "edge labels" 'class="el"[^>]*>(WR|WW|RW)\([0-9]+\)'
self_contained "$f"
# The SVG is well formed XML (our layout's), where xmllint exists.
if command -v xmllint >/dev/null; then
    sed -n '/^<svg xmlns/,/^<\/svg>/p' "$f" >"$work/own.svg"
    xmllint --noout "$work/own.svg" || fail "our SVG is not well-formed XML"
fi

echo "== SER, and the order of a batch is kept"
"$cli" check --isolation ser --html "$work/ser.html" "$work/ok.dbcop" "$lost" >/dev/null 2>&1
f=$work/ser.html
has "$f" "SER level" '<td>SER</td>'
first=$(grep -o '^<tr><td class="num">1</td><td class="path"><a href="#h1">[^<]*' "$f" | sed 's/.*>//')
[ "$first" = "$work/ok.dbcop" ] || fail "ser.html: first row is '$first', expected the first path"

echo "== an unwritable --html path: exit 2 at once, nothing written"
"$cli" check --html "$work/no/such/dir/r.html" "$lost" >"$work/out" 2>"$work/err"
code=$?
[ $code -eq 2 ] || fail "unwritable --html: exit $code, expected 2"
grep -q "no/such/dir/r.html" "$work/err" || fail "unwritable --html: the message does not name the path"
[ ! -s "$work/out" ] || fail "unwritable --html: a verdict was printed before the error"

if [ $fails -ne 0 ]; then
    echo "$fails failure(s)" >&2
    exit 1
fi
echo "all HTML report checks passed"
