#!/usr/bin/env python3
"""Runs a command R times (default 5) and prints its best wall time in
seconds; with --cpu, "WALL CPU": the best run's wall time and the CPU time
(user + system) of that run. It fails (exit 1, the command's output on
stderr) when a run exits non-zero, so that a broken peer cannot pass for a
fast one.
usage: best_of.py [-r RUNS] [--cpu] -- CMD ARGS..."""
import os
import subprocess
import sys
import time

args = sys.argv[1:]
runs = 5
cpu_too = False
while args[:1] in (["-r"], ["--cpu"]):
    if args[0] == "-r":
        runs = int(args[1])
        args = args[2:]
    else:
        cpu_too = True
        args = args[1:]
if args[:1] == ["--"]:
    args = args[1:]
if not args or runs < 1:
    sys.exit(__doc__)
best = None
for _ in range(runs):
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if done.returncode != 0:
        sys.stderr.write(done.stdout.decode(errors="replace")[-4000:])
        sys.exit(f"best_of.py: `{' '.join(args)}` exited {done.returncode}")
    if best is None or t < best[0]:
        best = (t, cpu)
print(f"{best[0]:.3f} {best[1]:.3f}" if cpu_too else f"{best[0]:.6f}")
