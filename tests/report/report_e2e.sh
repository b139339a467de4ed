#!/bin/sh
# End to end: @gpu_profile, metrics by step, runs/show/logs and the report,
# through report_driver (a stand-in for a generated bundle executable) and
# the stand-in NVML library, so that the runtime's dlopen path runs here.
#
#   report_e2e.sh DRIVER WORKDIR NVML_STANDIN_LIBRARY
#
# WORKDIR is emptied first; every case prints ok/FAIL; exit 1 when one failed.
set -u
D=$1
W=$2
NVML=$3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1

PIPE_LOCAL_CPUS=4
PIPE_LOCAL_MEMORY=8GB
export PIPE_LOCAL_CPUS PIPE_LOCAL_MEMORY
unset PIPE_STORE PIPE_LOCAL_GPUS CUDA_VISIBLE_DEVICES OMP_NUM_THREADS REPORT_SHAPE REPORT_INVOCATIONS STANDIN_NVML_FAIL \
    STANDIN_NVML_WAVE

fails=0
case_name=
begin() { case_name=$1; }
fail() {
    echo "FAIL: $case_name: $1"
    fails=$((fails + 1))
    if [ $# -gt 1 ] && [ -f "$2" ]; then sed 's/^/    | /' "$2" | head -n 60; fi
}
ok() { echo "ok: $case_name"; }
expect_exit() {
    if [ "$2" -ne "$1" ]; then fail "exit status $2, expected $1" "$3"; return 1; fi
    return 0
}
has() {
    if ! grep -F -q -- "$2" "$1"; then fail "missing \`$2\`" "$1"; return 1; fi
    return 0
}
hasnt() {
    if grep -F -q -- "$2" "$1"; then fail "unexpected \`$2\`" "$1"; return 1; fi
    return 0
}
run_id_of() { sed -n 's/^pipeline report_demo: run \([^,]*\),.*/\1/p' "$1" | head -n 1; }
# py OUT SCRIPT: a Python check; its output in OUT, its status returned.
py() {
    out=$1
    shift
    python3 -c "$@" >"$out" 2>&1
}

GPU_HEADER=time_s,gpu,name,utilization_pct,memory_used_mib,memory_total_mib,power_w,temperature_c,sm_clock_mhz

# ---- a profiled run against the stand-in NVML ----
begin "a run with @gpu_profile and the stand-in NVML"
PIPE_NVML_LIBRARY=$NVML "$D" run >r1.out 2>&1
st=$?
R1=$(run_id_of r1.out)
if expect_exit 0 $st r1.out && has r1.out "4 done" &&
    has r1.out "report: \`$D report $R1\` writes .pipe/$R1/report.html"; then ok; fi

begin "GPUs on this machine: NVML's count (2) when PIPE_LOCAL_GPUS is unset"
if has r1.out "sampling every 100 ms: GPU 0 (Stand-in GPU 0), 1 (Stand-in GPU 1)" &&
    hasnt r1.out "requests 2 GPUs"; then ok; fi

begin "profile/gpu.csv: header row, every GPU given to the step, NVML's values"
g=.pipe/"$R1"/train/profile/gpu.csv
if [ "$(head -n 1 "$g")" != "$GPU_HEADER" ]; then
    fail "header is $(head -n 1 "$g")" "$g"
elif has "$g" ",0,Stand-in GPU 0,37,10240,40960,123.4,55,1410" && has "$g" ",1,Stand-in GPU 1,81,30720,81920,250.0,67,1755"; then
    n0=$(grep -c ',0,Stand-in GPU 0,' "$g")
    n1=$(grep -c ',1,Stand-in GPU 1,' "$g")
    # About 1.5 s at 100 ms: some 15 samples of each (fewer on a loaded machine).
    if [ "$n0" -lt 5 ] || [ "$n0" != "$n1" ]; then fail "$n0 and $n1 samples" "$g"; else ok; fi
fi

begin "profile/process.csv: header row, time from the start, CPU and memory"
p=.pipe/$R1/train/profile/process.csv
if [ "$(head -n 1 "$p")" != "time_s,cpu_pct,rss_mib" ]; then
    fail "header is $(head -n 1 "$p")" "$p"
elif ! py py1.out "
import csv
rows = list(csv.DictReader(open('$p')))
t = [float(r['time_s']) for r in rows]
assert len(rows) >= 5, len(rows)
assert t == sorted(t) and t[0] < 0.5, t
# train holds 32 MiB and keeps a core busy
assert max(float(r['rss_mib']) for r in rows) >= 32, rows
assert max(float(r['cpu_pct']) for r in rows) > 20, rows
"; then fail "process samples" py1.out; else ok; fi

begin "all ranks together: 2 ranks of 48 MiB each"
p=.pipe/$R1/multi/profile/process.csv
if py py2.out "
import csv
rows = list(csv.DictReader(open('$p')))
assert max(float(r['rss_mib']) for r in rows) >= 96, [r['rss_mib'] for r in rows]
"; then ok; else fail "the ranks' memory does not add up" py2.out; fi

begin "a step given no GPU: process samples, and the log says why not GPUs, once"
l=.pipe/$R1/multi/log
if has "$l" "gpu_profile: no GPU samples: the step was given no GPU" && has .pipe/"$R1"/multi/profile/gpu-unavailable "no GPU"; then
    if [ "$(grep -c 'no GPU samples' "$l")" != 1 ]; then fail "said more than once" "$l"; else ok; fi
fi

begin "metrics.csv: name,step,value,time_s with a step index per name"
m=.pipe/$R1/train/metrics.csv
if [ "$(head -n 1 "$m")" != "name,step,value,time_s" ]; then
    fail "header is $(head -n 1 "$m")" "$m"
elif py py3.out "
import csv
rows = list(csv.DictReader(open('$m')))
steps = lambda n: [int(r['step']) for r in rows if r['name'] == n]
assert steps('loss') == list(range(60)), steps('loss')
assert steps('train_accuracy') == list(range(60))
assert steps('val_loss') == list(range(9, 60, 10)), steps('val_loss')
assert all(float(r['time_s']) >= 0 for r in rows)
"; then ok; else fail "steps" py3.out; fi

# ---- without NVML ----
begin "without NVML: process samples all the same, and the log says why not GPU samples"
PIPE_LOCAL_GPUS=2 PIPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$D" run --no-cache >r2.out 2>&1
st=$?
R2=$(run_id_of r2.out)
if expect_exit 0 $st r2.out && has .pipe/"$R2"/train/log "no GPU samples: cannot load /nonexistent/libnvidia-ml.so.1"; then
    if [ "$(cat .pipe/"$R2"/train/profile/gpu.csv)" != "$GPU_HEADER" ]; then
        fail "gpu.csv has rows" .pipe/"$R2"/train/profile/gpu.csv
    elif [ "$(wc -l <.pipe/"$R2"/train/profile/process.csv)" -lt 4 ]; then
        fail "too few process samples" .pipe/"$R2"/train/profile/process.csv
    else
        ok
    fi
fi

begin "without NVML and without PIPE_LOCAL_GPUS: this machine has no GPU"
PIPE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$D" run --no-cache >r3.out 2>&1
st=$?
if expect_exit 0 $st r3.out && has r3.out "requests 2 GPUs (this machine has 0)"; then ok; fi

# ---- a failure ----
begin "a failed run"
PIPE_NVML_LIBRARY=$NVML "$D" run --param fail=true >r4.out 2>&1
st=$?
RF=$(run_id_of r4.out)
if expect_exit 1 $st r4.out; then ok; fi

# ---- runs ----
begin "runs: ids and statuses, newest first"
"$D" runs >h1.out 2>&1
st=$?
if expect_exit 0 $st h1.out && has h1.out "$R1" && has h1.out "succeeded" && has h1.out "failed"; then
    if [ "$(sed -n '2s/ .*//p' h1.out)" != "$RF" ]; then fail "newest is not $RF" h1.out; else ok; fi
fi

begin "runs --json"
"$D" runs --json >h2.out 2>&1
st=$?
if expect_exit 0 $st h2.out && py py4.out "
import json
d = json.load(open('h2.out'))
assert d['schema'] == 'pipe.runs/1', d
runs = {r['run_id']: r for r in d['runs']}
assert runs['$R1']['status'] == 'succeeded' and runs['$RF']['status'] == 'failed', runs
assert runs['$RF']['params']['fail'] == 'true' and runs['$R1']['pipeline'] == 'report_demo'
assert d['runs'][0]['run_id'] == '$RF'
assert runs['$R1']['duration_s'] > 0 and runs['$R1']['finished']
"; then ok; else fail "JSON" py4.out; fi

# ---- RUN: an id, a unique prefix, latest ----
begin "show latest, show with no RUN, show by a unique prefix"
"$D" show latest >h3.out 2>&1
s1=$?
"$D" show >h4.out 2>&1
s2=$?
"$D" show --store .pipe "$(echo "$R1" | cut -c1-20)" >h5.out 2>&1
s3=$?
if expect_exit 0 $s1 h3.out && expect_exit 0 $s2 h4.out && has h3.out "run $RF of pipeline report_demo: failed" &&
    has h4.out "run $RF of" && { [ "$s3" -ne 0 ] || has h5.out "run $R1 of"; }; then ok; fi

begin "an ambiguous prefix names the runs it starts"
"$D" show "$(echo "$R1" | cut -c1-4)" >h6.out 2>&1
st=$?
if expect_exit 2 $st h6.out && has h6.out "is the start of" && has h6.out "give more of the id"; then ok; fi

begin "an unknown run"
"$D" show 20000101-000000-abcdef >h7.out 2>&1
st=$?
if expect_exit 2 $st h7.out && has h7.out "no run \`20000101-000000-abcdef\`"; then ok; fi

begin "a run id starting with - is refused; show does not take one"
"$D" run --run-id=-x >h8.out 2>&1
s1=$?
"$D" show -x >h9.out 2>&1
s2=$?
if expect_exit 2 $s1 h8.out && has h8.out "starts with \`-\`" && expect_exit 2 $s2 h9.out &&
    has h9.out "unknown option \`-x\`" && [ ! -e .pipe/-x ]; then ok; fi

# ---- show ----
begin "show: parameters, inputs, outputs (size, digest), metrics, profile"
"$D" show "$R1" >s1.out 2>&1
st=$?
dig=$(sed -n 's/^ *sha256: \([0-9a-f]*\).*/\1/p' .pipe/"$R1"/prepare/step.yaml | head -n 1)
if expect_exit 0 $st s1.out && has s1.out "params    n=1000 epochs=60 work_ms=1500 lr=0.05 fail=false" &&
    has s1.out "params   epochs=60 work_ms=1500 lr=0.05" && has s1.out "input    data <- prepare.data  3.89 KB  sha256 $dig" &&
    has s1.out "output   data  3.89 KB  sha256 $dig" && has s1.out "loss=" && has s1.out "(60 values, steps 0..59" &&
    has s1.out "val_loss=" && has s1.out "GPU 0 (Stand-in GPU 0): utilization mean 37%, peak 37%" &&
    has s1.out "GPU 1 (Stand-in GPU 1): utilization mean 81%" && has s1.out "no GPU samples: the step was given no GPU"; then
    ok
fi

begin "show: the root cause of a failure"
"$D" show "$RF" >s2.out 2>&1
st=$?
if expect_exit 0 $st s2.out && has s2.out "root cause: evaluate failed: exited with status 1: accuracy 0.42 is below min_accuracy 0.9" &&
    has s2.out "exit 1"; then ok; fi

begin "show --json (schema pipe.show/1)"
"$D" show "$RF" --json >s3.out 2>&1
st=$?
if expect_exit 0 $st s3.out && py py5.out "
import json
d = json.load(open('s3.out'))
assert d['schema'] == 'pipe.show/1' and d['run_id'] == '$RF' and d['status'] == 'failed'
assert d['params']['fail'] == 'true'
assert d['root_cause']['invocation'] == 'evaluate' and 'below min_accuracy' in d['root_cause']['error']
inv = {i['id']: i for i in d['invocations']}
t = inv['train']
assert t['status'] in ('done', 'cached') and t['needs'] == ['prepare'], t
assert t['inputs'][0]['from'] == {'invocation': 'prepare', 'output': 'data'}, t['inputs']
assert t['inputs'][0]['size_bytes'] == 3890 and len(t['inputs'][0]['sha256']) == 64
assert {m['name']: m['values'] for m in t['metrics']} == {'loss': 60, 'train_accuracy': 60, 'val_loss': 6}
e = inv['evaluate']
assert e['status'] == 'failed' and e['exit_code'] == 1 and e['params'] == {'fail': 'true'}
m = inv['multi']
assert m['status'] == 'cached' and m['cached_from'].endswith('/multi') and m['profile'] is None, m
"; then ok; else fail "JSON" py5.out; fi

begin "show --json of the profiled run: GPU statistics"
"$D" show "$R1" --json >s4.out 2>&1
if py py6.out "
import json
d = json.load(open('s4.out'))
inv = {i['id']: i for i in d['invocations']}
g = inv['train']['profile']['gpus']
assert [x['index'] for x in g] == [0, 1] and g[0]['name'] == 'Stand-in GPU 0', g
assert g[0]['utilization_pct_mean'] == 37 and g[1]['utilization_pct_peak'] == 81
assert g[1]['memory_used_mib_peak'] == 30720 and g[1]['memory_total_mib'] == 81920
assert inv['train']['profile']['interval_ms'] == 100
assert d['root_cause'] is None
m = inv['multi']['profile']
assert 'no GPU' in m['gpu_unavailable'] and m['gpus'] == [] and m['processes']['samples'] >= 3
assert m['processes']['rss_mib_peak'] >= 96
"; then ok; else fail "JSON" py6.out; fi

# ---- logs ----
begin "logs RUN INVOCATION"
"$D" logs "$R1" train >l1.out 2>&1
st=$?
if expect_exit 0 $st l1.out && has l1.out "epoch 60/60 loss" && has l1.out "[pipe] gpu_profile: sampling"; then ok; fi

begin "logs --rank N: one rank's lines"
"$D" logs "$R1" multi --rank 1 >l2.out 2>&1
st=$?
if expect_exit 0 $st l2.out && has l2.out "rank 1 of 2 busy" && hasnt l2.out "rank 0 of 2" && hasnt l2.out "[pipe]"; then ok; fi

begin "logs: a rank the invocation does not have, an unknown invocation"
"$D" logs "$R1" train --rank 1 >l3.out 2>&1
s1=$?
"$D" logs "$R1" trian >l4.out 2>&1
s2=$?
if expect_exit 2 $s1 l3.out && has l3.out "has 1 rank" && expect_exit 2 $s2 l4.out && has l4.out "did you mean \`train\`"; then ok; fi

begin "logs RUN: every invocation's log"
"$D" logs "$RF" >l5.out 2>&1
st=$?
if expect_exit 0 $st l5.out && has l5.out "==> prepare (cached) <==" && has l5.out "==> evaluate (failed) <==" &&
    has l5.out "accuracy 0.42 is below"; then ok; fi

# ---- the report ----
begin "report: STORE/RUN/report.html by default, self-contained, what ran"
"$D" report "$R1" >p1.out 2>&1
st=$?
dm=$(sed -n 's/^ *sha256: \([0-9a-f]*\).*/\1/p' .pipe/"$R1"/train/step.yaml | tail -n 1 | cut -c1-12)
if expect_exit 0 $st p1.out && has p1.out ".pipe/$R1/report.html" &&
    python3 "$HERE/check_report.py" .pipe/"$R1"/report.html --charts 11 \
        --text "Pipeline report_demo run $R1" --text "succeeded" --text "4 invocations: 4 done" \
        --text "prepare" --text "train" --text "evaluate" --text "multi" \
        --text "epochs 60" --text "lr 0.05" --text "epochs=60" --text "data ← prepare.data · 3.89 KB · ${dig%"${dig#????????????}"}" \
        --text "model · 20 bytes · $dm" \
        --text "loss · last" --text "60 values, steps 0–59" --text "val_loss · last" --text "6 values, steps 9–59" \
        --text "GPU 0 · Stand-in GPU 0" --text "utilization mean 37% · peak 37%" --text "utilization mean 81% · peak 81%" \
        --text "memory peak 30.0 GiB of 80.0 GiB" --text "Processes (all ranks together)" \
        --text "No GPU samples: the step was given no GPU" --text "time since the step started (s)" --text "step" \
        --text "epoch 60/60 loss" --text "rows" --text "0.9712" --no-text "Root cause" >p1.chk 2>&1; then
    ok
else
    [ -f p1.chk ] && fail "report content" p1.chk
fi

begin "report of a failure: the root cause, its log"
"$D" report "$RF" -o failed.html >p2.out 2>&1
st=$?
if expect_exit 0 $st p2.out && python3 "$HERE/check_report.py" failed.html --text "Root cause" \
    --text "evaluate failed (exit 1" --text "accuracy 0.42 is below min_accuracy 0.9" --text "[rank 0] evaluating" \
    --text "1 failed" --text "cached" >p2.chk 2>&1; then ok; else fail "report content" p2.chk; fi

begin "report without NVML says so in the GPU section"
"$D" report "$R2" -o nonvml.html >p3.out 2>&1
st=$?
if expect_exit 0 $st p3.out && python3 "$HERE/check_report.py" nonvml.html \
    --text "No GPU samples: cannot load /nonexistent/libnvidia-ml.so.1" --text "CPU mean" >p3.chk 2>&1; then
    ok
else fail "report content" p3.chk; fi

begin "report -o -: the page on standard output; latest by default"
"$D" report -o - >p4.html 2>p4.err
st=$?
if expect_exit 0 $st p4.err && python3 "$HERE/check_report.py" p4.html --text "run $RF" >p4.chk 2>&1; then ok; else
    fail "report content" p4.chk
fi

begin "report: a file that cannot be written"
"$D" report "$R1" -o /nonexistent/dir/r.html >p5.out 2>&1
st=$?
if expect_exit 1 $st p5.out && has p5.out "/nonexistent/dir/r.html"; then ok; fi

begin "ten thousand samples: drawn thinned, peaks kept, statistics over all"
mkdir -p big && cp -r .pipe/"$R1" big/big1 && sed -i "s/^run_id: .*/run_id: big1/" big/big1/run.yaml
python3 -c "
import math
d = 'big/big1/train/profile'
with open(d + '/gpu.csv', 'w') as f:
    f.write('$GPU_HEADER\n')
    for i in range(10000):
        u = 100 if i == 7777 else 20 + (i % 7)
        f.write('%.3f,0,Stand-in GPU 0,%d,%d,40960,150.0,60,1400\n' % (i * 0.1, u, 10000 + i))
with open(d + '/process.csv', 'w') as f:
    f.write('time_s,cpu_pct,rss_mib\n')
    for i in range(10000):
        f.write('%.3f,%.1f,%.1f\n' % (i * 0.1, 50 + i % 3, 100 + i * 0.01))
"
"$D" report big1 --store big -o big.html >p6.out 2>&1
st=$?
if expect_exit 0 $st p6.out && python3 "$HERE/check_report.py" big.html --max-bytes 600000 \
    --text "utilization mean 23% · peak 100%" --text "(10000 samples)" --text "time since the step started (min)" \
    >p6.chk 2>&1 && py py7.out "
import re
page = open('big.html').read()
paths = re.findall(r'<path class=\"line\"[^>]* d=\"([^\"]*)\"', page)
longest = max(len(re.findall(r'[ML]', d)) for d in paths)
assert longest <= 1200, longest  # thinned to about two points per pixel column
assert re.search(r'<svg class=\"chart\"[^>]*aria-label=\"utilization of GPU 0', page)
"; then ok; else fail "thinning" p6.chk; [ -f py7.out ] && cat py7.out; fi

begin "text from the records is escaped, never markup"
mkdir -p evil && cp -r .pipe/"$RF" evil/evil1 && sed -i "s/^run_id: .*/run_id: evil1/" evil/evil1/run.yaml
sed -i 's|^  fail: .*|  fail: "<script>alert(1)</script>"|' evil/evil1/run.yaml
sed -i 's|^error: .*|error: "<img src=x onerror=alert(1)> \& </pre><b>"|' evil/evil1/evaluate/step.yaml
"$D" report evil1 --store evil -o evil.html >p7.out 2>&1
st=$?
if expect_exit 0 $st p7.out && python3 "$HERE/check_report.py" evil.html --text "fail <script>alert(1)</script>" \
    --text "<img src=x onerror=alert(1)> & </pre><b>" >p7.chk 2>&1; then ok; else fail "escaping" p7.chk; fi

begin "a run of 200 invocations"
REPORT_SHAPE=wide "$D" run --no-cache --jobs 4 >w1.out 2>&1
st=$?
RW=$(run_id_of w1.out)
if expect_exit 0 $st w1.out && REPORT_SHAPE=wide "$D" report "$RW" -o wide.html >w2.out 2>&1 &&
    python3 "$HERE/check_report.py" wide.html --max-bytes 1500000 --text "200 invocations: 200 done" \
        --text "shard ×198" --text "198 done" --text "shard_1 shard" --text "shard_198 shard" --text "shard_rows" \
        --text "298" >w3.chk 2>&1; then ok; else fail "report content" w3.chk; fi

# ---- a run whose runner is gone ----
begin "runs: a run whose runner was killed is interrupted"
PIPE_NVML_LIBRARY=$NVML "$D" run --no-cache --param work_ms=60000 >k1.out 2>&1 &
runner=$!
i=0
while [ $i -lt 200 ] && ! grep -q 'gpu_profile: sampling' k1.out; do
    sleep 0.1
    i=$((i + 1))
done
RK=$(run_id_of k1.out)
"$D" runs >k2.out 2>&1
"$D" show "$RK" --json >k4.out 2>&1
"$D" report "$RK" -o live.html >k5.out 2>&1
kill -KILL $runner
wait $runner 2>/dev/null
sleep 0.5
"$D" runs >k3.out 2>&1
if [ -z "$RK" ]; then fail "the run did not start" k1.out; elif grep "^$RK " k2.out | grep -q running &&
    grep "^$RK " k3.out | grep -q interrupted; then ok; else fail "not running, then interrupted" k3.out; cat k2.out; fi

begin "show and report while a run runs: the running invocation, its samples so far"
if py py8.out "
import json
d = json.load(open('k4.out'))
inv = {i['id']: i for i in d['invocations']}
assert d['status'] == 'running', d['status']
assert inv['train']['status'] == 'running' and inv['evaluate']['status'] == 'not_run', inv['train']['status']
assert inv['train']['profile']['processes']['samples'] >= 1
" && python3 "$HERE/check_report.py" live.html --text "running" --text "GPU 0 · Stand-in GPU 0" \
    >k5.chk 2>&1; then ok; else fail "a live run" py8.out; cat k5.chk; fi
# The supervisors got SIGTERM when the runner died; let them finish.
sleep 1

# ---- Neuron devices: neuron-monitor's reports (a stand-in printing recorded ones) ----
NEURON_HEADER=time_s,device,core,utilization_pct,memory_used_mib,name
begin "a step on Trainium devices: profile/neuron.csv from neuron-monitor's JSON, malformed reports skipped"
REPORT_SHAPE=neuron PIPE_NEURON_MONITOR="$HERE/neuron_monitor_standin.sh" NEURON_STANDIN_REPORTS="$HERE/neuron_monitor.jsonl" \
    NEURON_STANDIN_PIDFILE="$W/standin.pid" "$D" run --run-id neuron1 --no-cache --param work_ms=1000 >n1.out 2>&1
st=$?
n=.pipe/neuron1/idle/profile/neuron.csv
if expect_exit 0 $st n1.out && [ "$(head -n 1 "$n")" = "$NEURON_HEADER" ] &&
    has n1.out "sampling every 100 ms: the step's 2 Neuron devices (neuron-monitor)" &&
    has n1.out "2 neuron-monitor reports could not be read and were skipped" &&
    has "$n" ",0,0,12.5,100.0,trainium" && has "$n" ",0,1,40.0,200.0,trainium" && has "$n" ",1,2,73.2,300.0,trainium" &&
    has "$n" ",1,3,99.5,400.0,trainium" && has "$n" ",1,3,100.0,420.0,trainium" &&
    has .pipe/neuron1/idle/profile/neuron-monitor.json '"period": "100ms"'; then
    rows=$(($(wc -l <"$n") - 1))
    if [ "$rows" != 12 ]; then fail "$rows rows, expected 12 (3 reports of 4 cores)" "$n"
    elif kill -0 "$(cat "$W/standin.pid")" 2>/dev/null; then fail "neuron-monitor left running" n1.out
    else ok; fi
fi

begin "report and show --json: one section per NeuronCore, drawn as GPUs are"
REPORT_SHAPE=neuron "$D" report neuron1 -o neuron.html >n2.out 2>&1
s1=$?
REPORT_SHAPE=neuron "$D" show neuron1 --json >n3.out 2>&1
s2=$?
if expect_exit 0 $s1 n2.out && expect_exit 0 $s2 n3.out && python3 "$HERE/check_report.py" neuron.html --charts 10 \
    --text "NeuronCore 0 · device 0, trainium" --text "NeuronCore 3 · device 1, trainium" \
    --text "the core was busy" --text "utilization of NeuronCore 2 (device 1, trainium)" \
    --no-text "No GPU samples" >n2.chk 2>&1 && py py9.out "
import json
d = json.load(open('n3.out'))
p = {i['id']: i for i in d['invocations']}['idle']['profile']
c = p['neuron_cores']
assert [x['core'] for x in c] == [0, 1, 2, 3] and c[2]['name'] == 'device 1, trainium', c
assert c[3]['utilization_pct_peak'] == 100 and c[3]['memory_used_mib_peak'] == 420 and c[0]['samples'] == 3, c
assert p['neuron_unavailable'] is None and p['gpus'] == []
"; then ok; else fail "report content" n2.chk; cat py9.out 2>/dev/null; fi

begin "no neuron-monitor: one log line, the reason in the report, the processes still sampled"
REPORT_SHAPE=neuron PIPE_NEURON_MONITOR=/nonexistent/neuron-monitor "$D" run --run-id neuron2 --no-cache \
    --param work_ms=300 >n4.out 2>&1
st=$?
REPORT_SHAPE=neuron "$D" report neuron2 -o noneuron.html >n5.out 2>&1
if expect_exit 0 $st n4.out &&
    [ "$(grep -c 'gpu_profile' .pipe/neuron2/idle/log)" = 1 ] &&
    has .pipe/neuron2/idle/log "no Neuron samples: PIPE_NEURON_MONITOR=/nonexistent/neuron-monitor is not an executable file" &&
    [ "$(wc -l <.pipe/neuron2/idle/profile/neuron.csv)" = 1 ] &&
    python3 "$HERE/check_report.py" noneuron.html --text "No Neuron samples: PIPE_NEURON_MONITOR=/nonexistent" \
        --text "CPU mean" --no-text "No GPU samples" >n5.chk 2>&1; then
    ok
else fail "no neuron-monitor" n5.chk; fi

# ---- the checker itself finds what it must ----
begin "check_report.py refuses a page that fetches or runs something"
cat >bad.html <<'HTML'
<!DOCTYPE html><html><head><style>@import "x.css"; body{background:url(http://x/y.png)}</style>
<link rel="stylesheet" href="https://cdn.example/x.css"></head><body><script>alert(1)</script>
<img src="//cdn.example/a.png"><a href="file:///etc/passwd">x</a><div onclick="x()">y</div></body></html>
HTML
python3 "$HERE/check_report.py" bad.html >bad.out 2>&1
st=$?
if expect_exit 1 $st bad.out && has bad.out "<script> element" && has bad.out "@import" && has bad.out "url(http://x/y.png)" &&
    has bad.out "<link> element" && has bad.out "file:///etc/passwd" && has bad.out "onclick"; then ok; fi

echo
if [ $fails -gt 0 ]; then
    echo "report_e2e: $fails case(s) failed"
    exit 1
fi
echo "report_e2e: all cases passed"
exit 0
