#!/usr/bin/env python3
"""Prints the best wall time of a command over R runs (default 5), in seconds.
usage: best_time.py [-r RUNS] -- CMD ARGS..."""
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
best = None
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = time.perf_counter() - start
    best = t if best is None or t < best else best
print(f"{best:.4f}")
