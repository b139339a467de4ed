#!/bin/sh
# The report as a browser shows it: headless Chromium renders reports at
# 1280 pixels wide into PNG files, and png_check.py checks that they are
# not blank (colours, ink); an empty page must fail that check.
#
#   report_render.sh DRIVER WORKDIR NVML_STANDIN_LIBRARY
#
# Chromium comes from Debian's `chromium` package (scripts/install-deps.sh).
set -u
D=$1
W=$2
NVML=$3
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
unset PIPE_STORE PIPE_LOCAL_GPUS CUDA_VISIBLE_DEVICES REPORT_SHAPE REPORT_INVOCATIONS STANDIN_NVML_FAIL STANDIN_NVML_WAVE
PIPE_LOCAL_CPUS=4
PIPE_LOCAL_MEMORY=8GB
export PIPE_LOCAL_CPUS PIPE_LOCAL_MEMORY

CHROMIUM=
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then CHROMIUM=$c; break; fi
done
if [ -z "$CHROMIUM" ]; then
    echo "FAIL: no Chromium on PATH: install it with bash scripts/install-deps.sh (Debian package chromium)"
    exit 1
fi

fails=0
# render HTML PNG HEIGHT: a screenshot 1280 pixels wide.
render() {
    rm -f "$2"
    timeout 120 "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-extensions --disable-dev-shm-usage --user-data-dir="$W/chromium-profile" \
        --window-size=1280,"$3" --screenshot="$2" "file://$1" >"$2.log" 2>&1
    if [ ! -s "$2" ]; then
        echo "FAIL: Chromium wrote no $2"
        sed 's/^/    | /' "$2.log" | tail -n 20
        fails=$((fails + 1))
        return 1
    fi
}
# check NAME PNG: not blank.
check() {
    if python3 "$HERE/png_check.py" "$2" --width 1280 --min-colors 40 --min-ink 3 >"$2.chk" 2>&1; then
        echo "ok: $1 ($(cat "$2.chk"))"
    else
        echo "FAIL: $1"
        sed 's/^/    | /' "$2.chk"
        fails=$((fails + 1))
    fi
}

PIPE_NVML_LIBRARY=$NVML "$D" run --run-id profiled >run1.out 2>&1 || { echo "FAIL: the run failed"; cat run1.out; exit 1; }
"$D" report profiled -o "$W/profiled.html" >/dev/null 2>&1
render "$W/profiled.html" "$W/profiled.png" 2400 && check "a profiled run" "$W/profiled.png"

PIPE_NVML_LIBRARY=$NVML "$D" run --run-id one --no-cache --param epochs=1 --param work_ms=0 >run2.out 2>&1
"$D" report one -o "$W/one.html" >/dev/null 2>&1
render "$W/one.html" "$W/one.png" 1600 && check "one sample" "$W/one.png"

REPORT_SHAPE=wide "$D" run --run-id wide --no-cache --jobs 4 >run3.out 2>&1
REPORT_SHAPE=wide "$D" report wide -o "$W/wide.html" >/dev/null 2>&1
render "$W/wide.html" "$W/wide.png" 1200 && check "200 invocations" "$W/wide.png"

# A step on Neuron devices, sampled by the stand-in neuron-monitor.
REPORT_SHAPE=neuron PIPE_NEURON_MONITOR="$HERE/neuron_monitor_standin.sh" NEURON_STANDIN_REPORTS="$HERE/neuron_monitor.jsonl" \
    "$D" run --run-id neuron --no-cache --param work_ms=600 >run4.out 2>&1
REPORT_SHAPE=neuron "$D" report neuron -o "$W/neuron.html" >/dev/null 2>&1
render "$W/neuron.html" "$W/neuron.png" 2400 && check "NeuronCores" "$W/neuron.png"

# The check must be able to fail: an empty page is blank.
printf '<!DOCTYPE html><html><body></body></html>\n' >"$W/empty.html"
if render "$W/empty.html" "$W/empty.png" 800; then
    if python3 "$HERE/png_check.py" "$W/empty.png" --width 1280 --min-colors 40 --min-ink 3 >"$W/empty.chk" 2>&1; then
        echo "FAIL: an empty page passed the check"
        fails=$((fails + 1))
    else
        echo "ok: an empty page is found blank"
    fi
fi

if [ $fails -gt 0 ]; then
    echo "report_render: $fails failed"
    exit 1
fi
echo "report_render: all passed"
