"""The resume_py pipeline's command step (checkpoint_kill.sh): the loop of
src/resume_steps.c as a plain Python script would write it, checkpointing
through PIPE_CHECKPOINT_DIR every EVERY iterations and at SIGTERM, into
DIR/.step_N.tmp, fsynced and renamed to DIR/step_N; resuming from
PIPE_CHECKPOINT_LATEST. What it loads is checked (a torn checkpoint is
noted in MARKER/torn and fails the step); MARKER/progress holds the
iterations done, MARKER/starts a line "start N" per start.

  python3 loop.py ITERATIONS EVERY ITER_MS SAVE_MS SEED MARKER OUT
"""
import math
import os
import signal
import struct
import sys
import time

N = 64
MASK = (1 << 64) - 1
iterations, every, iter_ms, save_ms, seed = (int(v) for v in sys.argv[1:6])
marker, out = sys.argv[6], sys.argv[7]
ckpt_dir = os.environ["PIPE_CHECKPOINT_DIR"]
stop = False


def on_term(_sig, _frame):
    global stop  # pylint: disable=global-statement
    stop = True


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & MASK
    return h


def pack(done, rng, x):
    return struct.pack(f"<QQ{N}d", done, rng, *x)


def iterate(done, rng, x):
    for j in range(N):
        rng = (rng * 6364136223846793005 + 1442695040888963407) & MASK
        noise = (rng >> 11) / 9007199254740992.0 - 0.5
        x[j] = x[j] * 0.999 + math.sin(done * 0.01 + j) * 0.001 + noise * 1e-4
    return done + 1, rng


def write_synced(path, data):
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def save(done, rng, x):
    """DIR/.step_N.tmp written and fsynced, then renamed: complete or absent."""
    name = f"step_{done}"
    tmp = os.path.join(ckpt_dir, f".{name}.tmp")
    os.makedirs(tmp, exist_ok=True)
    data = pack(done, rng, x)
    write_synced(os.path.join(tmp, "state.bin"), data)
    time.sleep(save_ms / 1000)  # a large checkpoint takes a while: kills land here too
    write_synced(os.path.join(tmp, "sum"), f"{fnv1a(data):016x}\n".encode())
    fd = os.open(tmp, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    os.rename(tmp, os.path.join(ckpt_dir, name))
    fd = os.open(ckpt_dir, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


def load(path):
    """The state in checkpoint path, or None when it is torn."""
    try:
        with open(os.path.join(path, "state.bin"), "rb") as f:
            data = f.read()
        with open(os.path.join(path, "sum"), encoding="utf-8") as f:
            total = int(f.read().strip(), 16)
    except (OSError, ValueError):
        return None
    if len(data) != struct.calcsize(f"<QQ{N}d") or fnv1a(data) != total:
        return None
    v = struct.unpack(f"<QQ{N}d", data)
    return v[0], v[1], list(v[2:])


def note(name, text, mode):
    with open(os.path.join(marker, name), mode, encoding="utf-8") as f:
        f.write(text)


signal.signal(signal.SIGTERM, on_term)
done, rng, x = 0, seed, [j / N for j in range(N)]
latest = os.environ.get("PIPE_CHECKPOINT_LATEST")
if latest:
    loaded = load(latest)
    if loaded is None:
        note("torn", latest + "\n", "a")
        sys.exit(f"torn checkpoint {latest}")
    done, rng, x = loaded
note("starts", f"start {done}\n", "a")
print(f"starting at iteration {done}" + (f" from {latest}" if latest else ""))
while done < iterations:
    done, rng = iterate(done, rng, x)
    note("progress", f"{done}\n", "w")
    if done % every == 0 or stop:
        save(done, rng, x)
    if stop:
        print(f"stopped at iteration {done}, saved")
        sys.exit(1)
    time.sleep(iter_ms / 1000)
with open(out, "wb") as f:
    f.write(pack(done, rng, x))
