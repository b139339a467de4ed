#!/usr/bin/env python3
"""Runs a command R times (default 5) and prints its best wall time in
seconds. It fails (exit 1, the command's output on
stderr) when a run exits non-zero, so that a broken peer cannot pass for a
fast one.
usage: best_of.py [-r RUNS] -- CMD ARGS..."""
import subprocess
import sys
import time

args = sys.argv[1:]
runs = 5
if args[:1] == ["-r"]:
    runs = int(args[1])
    args = args[2:]
if args[:1] == ["--"]:
    args = args[1:]
if not args or runs < 1:
    sys.exit(__doc__)
best = None
for _ in range(runs):
    start = time.perf_counter()
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stdout.decode(errors="replace")[-4000:])
        sys.exit(f"best_of.py: `{' '.join(args)}` exited {done.returncode}")
    best = t if best is None or t < best else best
print(f"{best:.6f}")
