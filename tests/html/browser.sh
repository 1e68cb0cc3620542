#!/usr/bin/env bash
# The HTML report of the corpus violations in a real browser: headless
# Chromium renders it at 1200 px, takes a screenshot; the screenshot must not
# be blank (png_stats.py: enough ink and colours) and the page must log no
# console message (we ship no script, so any is an error). The console
# check is proven able to fail first on a page that logs errors. The report
# is printed to PDF too: a page or more per history.
# Skipped (exit 77, loudly) without Chromium (Debian: chromium; ./dev.sh test
# installs it) or without the corpus.
# Usage: browser.sh POLYSI_SOLVE
set -uo pipefail
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
corpus=${PSI_CORPUS:-${PSI_CORPUS_DEFAULT:-$here/../../../shared/corpus}}
viol=$corpus/polysi-artifact/violations
skip() {
    echo "************************************************************" >&2
    echo "*** SKIPPED: $*" >&2
    echo "************************************************************" >&2
    exit 77
}
chrome=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chrome" ] || skip "Chromium not found (Debian: apt-get install chromium)"
[ -d "$viol" ] || skip "corpus not found at $corpus"
command -v python3 >/dev/null || skip "python3 not found (Debian: apt-get install python3)"
work=$(mktemp -d "${TMPDIR:-/tmp}/psi-browser.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# shoot HTML PNG: renders HTML, screenshot to PNG, Chromium's log to PNG.log
shoot() {
    # a profile of its own: no state shared with other runs or users
    timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --user-data-dir="$work/profile" --window-size=1200,1600 \
        --enable-logging=stderr --v=0 --screenshot="$2" "file://$1" >"$2.log" 2>&1
}
console() { grep -E ':CONSOLE[:(]' "$1.log"; }

# The console check can fail: a page that logs an error is caught.
printf '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body><p>x</p><script>console.error("psi-marker")</script></body></html>\n' >"$work/bad.html"
shoot "$work/bad.html" "$work/bad.png"
console "$work/bad.png" | grep -q psi-marker ||
    fail "the console check does not see a page's console error (Chromium's log format changed?)"

for layout in graphviz own; do
    html=$work/report-$layout.html
    env=()
    [ $layout = own ] && env=(POLYSI_DOT=/nonexistent/dot)
    env "${env[@]}" "$cli" check --html "$html" "$viol/galera/galera.txt" \
        "$viol/yugabyte/yugabyte.txt" "$viol/dgraph/history.bincode" >/dev/null
    code=$?
    [ $code -eq 1 ] || fail "$layout: check of the violations: exit $code, expected 1 (all rejected)"
    shoot "$html" "$work/$layout.png"
    if [ ! -s "$work/$layout.png" ]; then
        fail "$layout: no screenshot"
        tail -20 "$work/$layout.png.log" >&2
        continue
    fi
    if console "$work/$layout.png" >/dev/null; then
        fail "$layout: console messages:"
        console "$work/$layout.png" >&2
    fi
    read -r w h ink colours < <(python3 "$here/png_stats.py" "$work/$layout.png")
    echo "$layout: screenshot ${w}x$h, $ink of the pixels inked, $colours colours"
    [ "$w" -eq 1200 ] || fail "$layout: screenshot is $w px wide, expected 1200"
    awk -v i="$ink" 'BEGIN { exit !(i > 0.03) }' || fail "$layout: the screenshot is (nearly) blank"
    [ "$colours" -gt 40 ] || fail "$layout: only $colours colours: no badges, no drawing?"
    if [ -n "${PSI_KEEP_SCREENSHOTS:-}" ]; then
        cp "$work/$layout.png" "$html" "$PSI_KEEP_SCREENSHOTS/"
    fi
done

# In print: one page or more per history (each section starts a page).
timeout 90 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --no-pdf-header-footer --print-to-pdf="$work/report.pdf" \
    "file://$work/report-graphviz.html" >"$work/pdf.log" 2>&1
# the page tree's count (the one /Pages object; Chromium writes one level)
pages=$(grep -ao '/Count [0-9]*' "$work/report.pdf" 2>/dev/null | head -1 | cut -d' ' -f2)
pages=${pages:-0}
echo "printed: $pages pages"
head -c 5 "$work/report.pdf" 2>/dev/null | grep -q '%PDF' || fail "no PDF printed"
[ "$pages" -ge 3 ] || fail "printed on $pages pages, expected a page (or more) per history"

if [ $fails -ne 0 ]; then
    echo "$fails failure(s)" >&2
    exit 1
fi
echo "the report renders in Chromium: not blank, no console errors"
