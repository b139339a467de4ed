#!/bin/sh
# The experiment view: a report with logged images and tables (a media/
# folder written by hand as the `pipe` module writes it), two runs compared
# on one page with their metrics overlaid, `runs --metric/--json`, the
# graph's edges routed around boxes, and untrusted media escaped or
# refused. Pages are parsed (self-contained, no fetch) and rendered by
# headless Chromium (not blank, images decoded).
#
#   report_views.sh DRIVER WORKDIR
#
# WORKDIR is emptied first; every case prints ok/FAIL; exit 1 when one failed.
set -u
D=$1
W=$2
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
PIPE_LOCAL_CPUS=4
PIPE_LOCAL_MEMORY=8GB
export PIPE_LOCAL_CPUS PIPE_LOCAL_MEMORY
unset PIPE_STORE PIPE_LOCAL_GPUS CUDA_VISIBLE_DEVICES REPORT_SHAPE REPORT_INVOCATIONS STANDIN_NVML_FAIL STANDIN_NVML_WAVE

fails=0
case_name=
begin() { case_name=$1; }
fail() {
    echo "FAIL: $case_name: $1"
    fails=$((fails + 1))
    if [ $# -gt 1 ] && [ -f "$2" ]; then sed 's/^/    | /' "$2" | head -n 40; fi
}
ok() { echo "ok: $case_name"; }
has() {
    if ! grep -F -q -- "$2" "$1"; then fail "missing \`$2\`" "$1"; return 1; fi
    return 0
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "unexpected \`$2\`" "$1"; return 1; fi
    return 0
}

A=20261126-101500-a1b2c3
B=20261126-103000-d4e5f6
S=store

# ---- the graph: an edge that skips a box goes around it ----
begin "graph: the edge prepare -> evaluate is not hidden behind train"
REPORT_SHAPE=skip "$D" run --store skip --run-id skip --param work_ms=0 --param epochs=3 >skip.out 2>&1 ||
    fail "the run failed" skip.out
REPORT_SHAPE=skip "$D" report --store skip skip -o skip.html >/dev/null 2>&1
if python3 "$HERE/check_graph.py" skip.html --min-edges 3 --min-routed 1 >graph.chk 2>&1; then ok; else
    fail "an edge crosses a box" graph.chk; fi
begin "graph, top to bottom: the edge prepare -> join is not hidden behind eight boxes"
REPORT_SHAPE=chain "$D" run --store chain --run-id chain >chain.out 2>&1 || fail "the run failed" chain.out
REPORT_SHAPE=chain "$D" report --store chain chain -o chain.html >/dev/null 2>&1
if python3 "$HERE/check_graph.py" chain.html --min-edges 10 --min-routed 1 >chain.chk 2>&1; then ok; else
    fail "an edge crosses a box" chain.chk; fi

# ---- a report with images and tables ----
begin "two runs, the second with another lr"
"$D" run --store $S --run-id $A --param work_ms=100 --param epochs=40 >a.out 2>&1 || fail "run A failed" a.out
"$D" run --store $S --run-id $B --param work_ms=100 --param epochs=40 --param lr=0.2 >b.out 2>&1 ||
    fail "run B failed" b.out
has b.out "parameter lr changed (0.05 -> 0.2)" && ok
python3 "$HERE/media_fixture.py" $S/$A/evaluate
python3 "$HERE/media_fixture.py" $S/$B/evaluate --seed 2

begin "report: images inline, the table escaped, a fake PNG and a path out of media/ refused"
"$D" report --store $S $A >report.out 2>&1 || fail "report failed" report.out
R=$S/$A/report.html
if python3 "$HERE/check_report.py" "$R" --images 3 --charts 3 --text "Images and tables" \
    --text "samples · step 1" --text "confusion <b>matrix</b>" --text "<script>alert('cell')</script>" \
    --text "café ✓" --text "not shown: images/fake.png — its bytes are not a PNG image" \
    --text "not shown: images/../../run.yaml — its file name is not images/NAME.png or .jpg" \
    --text "12 rows" --text "1 line of media/index.jsonl could not be read." >report.chk 2>&1; then
    hasnt "$R" "<script>" && hasnt "$R" "<b>matrix" && has "$R" "&lt;script&gt;alert(" && ok
else
    fail "the report" report.chk
fi

# ---- the comparison page ----
begin "report A B: one page, parameters that differ, metrics overlaid, the cache miss"
"$D" report --store $S $A "${B%-*}" >cmp.out 2>&1 || fail "report A B failed" cmp.out
C=$S/compare-$A-$B.html
has cmp.out "comparison of 2 runs: $C"
if python3 "$HERE/check_report.py" "$C" --images 6 --charts 3 --text "2 runs compared" --text "1 of 5 differ" \
    --text "≠ lr 0.05 0.2" --text "loss of train" --text "Values recorded once" \
    --text "train ran again: parameter lr changed (0.05 -> 0.2) (earlier success: $A/train)" \
    --text "from $A/prepare" --text "re-run: parameter lr changed (0.05 -> 0.2)" --text "<script>alert('cell')</script>" >cmp.chk 2>&1; then
    # one colour per run: each chart's legend names both runs
    legends=$(grep -o '<text class="tick" x="[0-9.]*" y="16">[a-z0-9]*</text>' "$C" | sed 's/.*>\(.*\)<.*/\1/' |
        sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
    case "$legends" in
    "a1b2c3=3 d4e5f6=3 ") ok ;;
    *) fail "legends: $legends (expected a1b2c3=3 d4e5f6=3)" ;;
    esac
else
    fail "the comparison" cmp.chk
fi

begin "report: a run given twice, -o, a long list of long ids"
"$D" report --store $S $A $A >twice.out 2>&1
rc=$?
if [ $rc -ne 2 ]; then fail "a run given twice: exit $rc, expected 2" twice.out; fi
has twice.out "is given twice"
"$D" report --store $S $B $A -o ba.html >/dev/null 2>&1
if [ ! -s ba.html ]; then fail "-o ba.html not written"; fi
L=a-run-id-of-forty-characters-or-so-xxxxx
for k in 1 2 3 4; do "$D" run --store $S --run-id $L$k --param work_ms=0 >/dev/null 2>&1; done
"$D" report --store $S ${L}1 ${L}2 ${L}3 ${L}4 >long.out 2>&1
n=$(find $S -maxdepth 1 -name "compare-${L}1-and-3-more-*.html" | wc -l)
if [ "$n" -eq 1 ]; then ok; else fail "expected $S/compare-${L}1-and-3-more-HASH.html" long.out; fi

# ---- runs --metric, --json ----
begin "runs --metric: a column per metric, the last value"
"$D" runs --store $S --metric loss --metric accuracy --metric nope >runs.out 2>&1
if grep -q "^RUN  *PIPELINE  *STATUS  *STARTED  *DURATION  *loss  *accuracy  *nope$" runs.out &&
    grep "^$A " runs.out | grep -q " 0\.1153  *0\.9712  *-$" && grep "^$B " runs.out | grep -q " 0\.05188  *0\.9712  *-$"; then
    ok
else fail "columns" runs.out; fi
begin "runs without --metric is as before"
"$D" runs --store $S >plain.out 2>&1
if head -n 1 plain.out | grep -q "^RUN  *PIPELINE  *STATUS  *STARTED  *DURATION$"; then ok; else
    fail "header" plain.out; fi

begin "runs --json --metric"
"$D" runs --store $S --json --metric loss --metric nope >runs.json 2>&1
cat >check_json.py <<'EOF'
import json, sys
doc = json.load(open("runs.json"))
runs = {r["run_id"]: r for r in doc["runs"]}
a, b = runs[sys.argv[1]], runs[sys.argv[2]]
assert doc["schema"] == "pipe.runs/1", doc["schema"]
assert a["params"]["lr"] == "0.05" and b["params"]["lr"] == "0.2", (a["params"], b["params"])
assert a["metrics"]["loss"]["invocation"] == "train" and a["metrics"]["loss"]["invocations"] == 1, a["metrics"]
assert abs(a["metrics"]["loss"]["value"] - 0.1153) < 1e-3 and abs(b["metrics"]["loss"]["value"] - 0.05188) < 1e-4
assert a["metrics"]["nope"] is None, a["metrics"]
for r in doc["runs"]:
    assert r["status"] == "succeeded" and r["duration_s"] >= 0 and r["started"] and r["finished"], r
EOF
if python3 check_json.py "$A" "$B" >json.chk 2>&1; then ok; else fail "runs --json" json.chk; fi

# ---- rendered by Chromium ----
CHROMIUM=
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$c; break; fi
done
render() { # HTML PNG HEIGHT
    rm -f "$2"
    timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-extensions --disable-dev-shm-usage --user-data-dir="$W/chromium-profile" \
        --window-size=1280,"$3" --screenshot="$2" "file://$W/$1" >"$2.log" 2>&1
    [ -s "$2" ] || { fail "Chromium wrote no $2" "$2.log"; return 1; }
}
# The orange of the fixture's confusion image: only a decoded image draws it.
ORANGE=233,162,47:2000
begin "Chromium: the report with images"
if [ -z "$CHROMIUM" ]; then fail "no Chromium on PATH: bash scripts/install-deps.sh (Debian package chromium)"; else
    render "$R" report.png 3000 &&
        if python3 "$HERE/png_check.py" report.png --width 1280 --min-colors 40 --min-ink 3 --has-color $ORANGE \
            >report.png.chk 2>&1; then ok; else fail "not drawn" report.png.chk; fi
    begin "Chromium: the comparison page"
    render "$C" compare.png 3600 &&
        if python3 "$HERE/png_check.py" compare.png --width 1280 --min-colors 40 --min-ink 3 \
            --has-color $ORANGE --has-color 37,99,235:200 --has-color 220,38,38:200 >compare.png.chk 2>&1; then ok
        else fail "not drawn" compare.png.chk; fi
fi

if [ $fails -gt 0 ]; then
    echo "report_views: $fails failed"
    exit 1
fi
echo "report_views: all passed"
