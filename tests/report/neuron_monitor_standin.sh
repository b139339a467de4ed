#!/bin/sh
# A stand-in for AWS's neuron-monitor: checks that it was given a
# configuration file (`-c FILE`, JSON with a period), prints the recorded
# reports of NEURON_STANDIN_REPORTS one a line, 50 ms apart (the malformed
# ones included, as a truncated write would leave them), then waits to be
# stopped as the real one runs until then (its pid, which the sleep keeps,
# in NEURON_STANDIN_PIDFILE when set).
set -u
if ! { [ "${1-}" = "-c" ] && [ -f "${2-}" ] && grep -q '"period": "[0-9]*ms"' "$2"; }; then
    echo "neuron-monitor stand-in: no -c CONFIG with a period" >&2
    exit 2
fi
[ -n "${NEURON_STANDIN_PIDFILE-}" ] && echo $$ >"$NEURON_STANDIN_PIDFILE"
while IFS= read -r line; do
    printf '%s\n' "$line"
    sleep 0.05
done <"$NEURON_STANDIN_REPORTS"
exec sleep 600
