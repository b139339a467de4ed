#!/usr/bin/env bash
# A throwaway Slurm cluster on this host for the Slurm deploy tests: munged,
# slurmctld and eight slurmd (n1 and n2 of this host's size, big1 and big2
# pretending to be large GPU machines, trn1 to trn4 Trainium machines),
# everything under one folder.
# See slurm.conf.in and docs/deploy-slurm.md.
#
#   cluster.sh check              whether slurm-wlm and munge are installed
#                                 (scripts/install-deps.sh installs them)
#   cluster.sh start DIR [CONFIG] configure and start; prints SLURM_CONF=DIR/etc/slurm.conf
#   cluster.sh stop DIR           cancel the cluster's jobs, stop the daemons by PID
#
# CONFIG says what big1 and big2 have, as clusters commonly differ:
#   typed    (the default) GPUs with GRES types (Gres=gpu:h100:8,...) and
#            1 TiB of TmpDisk
#   untyped  8 GPUs without a type (Gres=gpu:8), 1 TiB of TmpDisk
#   notmp    GPUs with GRES types, no TmpDisk (Slurm's default of 0)
#
# Clients (sbatch, squeue, ...) need SLURM_CONF=DIR/etc/slurm.conf.
# Runs as root (the daemons do; munged runs as the `munge` user).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# slurm.conf.in's nodes, one slurmd each (port: the controller's + 1 + index).
NODES=(n1 n2 big1 big2 trn1 trn2 trn3 trn4)
NODE_COUNT=${#NODES[@]}

die() {
    echo "cluster.sh: $*" >&2
    exit 1
}

check() {
    local missing=() tool
    for tool in sbatch srun scontrol squeue slurmctld slurmd munged munge; do
        command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
    done
    [ ${#missing[@]} = 0 ] && return 0
    die "${missing[*]} not installed (packages slurm-wlm and munge): run scripts/install-deps.sh"
}

# True when nothing listens on 127.0.0.1:$1.
port_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A base port P with P..P+4 free (slurmctld, n1, n2 and the two idle nodes),
# below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768
# and up by default): a port from that range can be taken by any outgoing
# connection of a test running beside this one between the check and the
# daemon's bind.
pick_ports() {
    local tries base k ok low
    low=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null) || low=32768
    [ "${low:-0}" -gt 20100 ] || low=32768
    for tries in $(seq 1 50); do
        base=$((20000 + (RANDOM % ((low - 20005) / 10)) * 10))
        ok=1
        for k in $(seq 0 "$NODE_COUNT"); do
            port_free $((base + k)) || ok=0
        done
        if [ $ok = 1 ]; then
            echo "$base"
            return 0
        fi
        : "$tries"
    done
    die "no free ports found"
}

# True while process $1 runs (a zombie, which a container's init may
# never reap, counts as stopped).
running() {
    local state
    state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ]
}

# Sends SIGTERM to the process in pid file $1, SIGKILL after 5 s.
stop_pidfile() {
    local file=$1 pid i
    [ -f "$file" ] || return 0
    pid=$(cat "$file" 2>/dev/null) || return 0
    case $pid in '' | *[!0-9]*) return 0 ;; esac
    kill -TERM "$pid" 2>/dev/null || { rm -f "$file"; return 0; }
    for i in $(seq 1 50); do
        running "$pid" || break
        sleep 0.1
        : "$i"
    done
    if running "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$file"
}

start() {
    local dir=$1 config=$2 big_gres big_tmp gres_lines
    case $config in
    typed | notmp)
        big_gres=gpu:h100:8,gpu:l4:8,gpu:a100-80gb:8
        gres_lines="NodeName=big[1-2] Name=gpu Type=h100 File=@DIR@/dev/nvidia[0-7]
NodeName=big[1-2] Name=gpu Type=l4 File=@DIR@/dev/nvidia[8-15]
NodeName=big[1-2] Name=gpu Type=a100-80gb File=@DIR@/dev/nvidia[16-23]"
        ;;
    untyped)
        big_gres=gpu:8
        gres_lines="NodeName=big[1-2] Name=gpu File=@DIR@/dev/nvidia[0-7]"
        ;;
    *) die "unknown configuration '$config' (typed, untyped or notmp)" ;;
    esac
    big_tmp="TmpDisk=1048576 "
    [ "$config" = notmp ] && big_tmp=""
    [ "$(id -u)" = 0 ] || die "the test cluster runs as root"
    check
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    chmod 755 "$dir"
    mkdir -p "$dir/etc" "$dir/state" "$dir/spool" "$dir/run" "$dir/log" "$dir/munge" "$dir/dev"
    local k
    for k in $(seq 0 23); do
        ln -sf /dev/null "$dir/dev/nvidia$k"
    done

    # munged with a private socket, key and pid file: nothing shared with a
    # system munged. It insists on a munge-owned folder that all may enter.
    local key=/etc/munge/munge.key
    if [ -r "$key" ]; then
        cp "$key" "$dir/munge/munge.key"
    else
        dd if=/dev/urandom of="$dir/munge/munge.key" bs=128 count=1 status=none
    fi
    chown -R munge:munge "$dir/munge"
    chmod 755 "$dir/munge"
    chmod 600 "$dir/munge/munge.key"
    su -s /bin/sh munge -c "/usr/sbin/munged --socket='$dir/munge/munge.socket' \
        --key-file='$dir/munge/munge.key' --pid-file='$dir/munge/munged.pid' \
        --log-file='$dir/munge/munged.log' --seed-file='$dir/munge/munged.seed'" ||
        die "munged did not start (see $dir/munge/munged.log)"

    local base cpus
    base=$(pick_ports)
    cpus=$(nproc)
    [ "$cpus" -gt 4 ] && cpus=4
    local ports=() k
    for k in $(seq 1 "$NODE_COUNT"); do
        ports+=(-e "s|@NODE_PORT$k@|$((base + k))|g")
    done
    sed -e "s|@DIR@|$dir|g" -e "s|@CTLD_PORT@|$base|g" "${ports[@]}" -e "s|@CPUS@|$cpus|g" \
        -e "s|@BIG_GRES@|$big_gres|g" -e "s|@BIG_TMP@|$big_tmp|g" \
        "$here/slurm.conf.in" >"$dir/etc/slurm.conf"
    awk -v lines="$gres_lines" '$0 == "@GRES_LINES@" {print lines; next} {print}' "$here/gres.conf.in" |
        sed -e "s|@DIR@|$dir|g" >"$dir/etc/gres.conf"
    export SLURM_CONF="$dir/etc/slurm.conf"

    /usr/sbin/slurmctld -f "$SLURM_CONF" || die "slurmctld did not start (see $dir/log/slurmctld.log)"
    local node
    for node in "${NODES[@]}"; do
        /usr/sbin/slurmd -f "$SLURM_CONF" -N "$node" || die "slurmd $node did not start (see $dir/log/slurmd-$node.log)"
    done

    # Wait until every node is idle; a controller that died (its port taken
    # after all) is reported at once, not after 300 slow sinfo calls.
    local i states="" ctld
    for i in $(seq 1 300); do
        ctld=$(cat "$dir/run/slurmctld.pid" 2>/dev/null) || ctld=""
        if [ -n "$ctld" ] && ! running "$ctld"; then
            echo "cluster.sh: slurmctld (pid $ctld) exited:" >&2
            tail -n 5 "$dir/log/slurmctld.log" >&2 || true
            return 1
        fi
        states=$(timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null | sort -u | tr '\n' ' ') || true
        if [ "$states" = "$(printf '%s idle\n' "${NODES[@]}" | sort | tr '\n' ' ')" ]; then
            echo "SLURM_CONF=$SLURM_CONF"
            return 0
        fi
        sleep 0.1
        : "$i"
    done
    echo "cluster.sh: nodes not idle after 30 s: $states" >&2
    tail -n 20 "$dir/log/slurmctld.log" >&2 || true
    return 1
}

stop() {
    local dir=$1
    [ -d "$dir" ] || return 0
    if [ -f "$dir/etc/slurm.conf" ] && [ -f "$dir/run/slurmctld.pid" ]; then
        # The jobs' slurmstepd processes outlive slurmd: cancel them first.
        SLURM_CONF="$dir/etc/slurm.conf" timeout 10 scancel --user="$(id -un)" 2>/dev/null || true
        local i
        for i in $(seq 1 50); do
            [ -z "$(SLURM_CONF="$dir/etc/slurm.conf" timeout 5 squeue -h -t running,completing -o %i 2>/dev/null)" ] && break
            sleep 0.1
            : "$i"
        done
    fi
    local node
    for node in "${NODES[@]}"; do
        stop_pidfile "$dir/run/slurmd-$node.pid"
    done
    stop_pidfile "$dir/run/slurmctld.pid"
    stop_pidfile "$dir/munge/munged.pid"
}

case ${1:-} in
check) check ;;
start) [ $# = 2 ] || [ $# = 3 ] || die "usage: cluster.sh start DIR [typed|untyped|notmp]"; start "$2" "${3:-typed}" ;;
stop) [ $# = 2 ] || die "usage: cluster.sh stop DIR"; stop "$2" ;;
*) die "usage: cluster.sh check | start DIR | stop DIR" ;;
esac
