# shellcheck shell=bash
# Sourced by the benches that compare with Open MPI: sets mpicc and mpirun
# to Debian's Open MPI, installing it with apt-get when it is missing and
# this is root (the apt log goes to $work/apt.log, $work the caller's scratch
# folder); empty when there is none.
: "${work:?the caller sets work}"
mpicc=$(command -v mpicc.openmpi || command -v mpicc || true)
mpirun=$(command -v mpirun.openmpi || command -v mpirun || true)
if { [ -z "$mpicc" ] || [ -z "$mpirun" ]; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Open MPI (apt-get install openmpi-bin libopenmpi-dev)..." >&2
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev; } >"$work/apt.log" 2>&1 ||
        { tail -5 "$work/apt.log" >&2; echo "apt-get failed: no Open MPI figure" >&2; }
    mpicc=$(command -v mpicc.openmpi || command -v mpicc || true)
    mpirun=$(command -v mpirun.openmpi || command -v mpirun || true)
fi
