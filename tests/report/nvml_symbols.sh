#!/bin/sh
# The runtime looks up only the NVML functions it documents (docs/report.md,
# "GPU profile"): every nvml* name in libpipe is one of them.
#
#   nvml_symbols.sh LIBPIPE_ARCHIVE
set -u
allowed="nvmlInit_v2 nvmlShutdown nvmlDeviceGetCount_v2 nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetUtilizationRates
nvmlDeviceGetMemoryInfo nvmlDeviceGetName nvmlDeviceGetPowerUsage nvmlDeviceGetTemperature nvmlDeviceGetClockInfo
nvmlErrorString nvmlDeviceGetHandleByUUID"
found=$(strings -a "$1" | grep -o 'nvml[A-Z][A-Za-z0-9_]*' | sort -u)
if [ -z "$found" ]; then
    echo "FAIL: no nvml names in $1 (is the profiler built in?)"
    exit 1
fi
bad=0
for name in $found; do
    case " $(echo "$allowed" | tr '\n' ' ') " in
    *" $name "*) echo "ok: $name" ;;
    *) echo "FAIL: $name is not one of the documented NVML functions"; bad=1 ;;
    esac
done
for name in nvmlInit_v2 nvmlDeviceGetUtilizationRates nvmlDeviceGetMemoryInfo; do
    echo "$found" | grep -qx "$name" || { echo "FAIL: $name is not looked up"; bad=1; }
done
exit $bad
