"""Writes a folder, as `save_pretrained` does, and some metrics."""
import json
import os
import sys

out, n = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(out, "shards"), exist_ok=True)
with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
    json.dump({"n": n}, f)
for i in range(n):
    with open(os.path.join(out, "shards", f"shard-{i}.bin"), "wb") as f:
        f.write(bytes([i]) * 16)
with open(os.environ["PIPE_METRICS"], "a", encoding="utf-8") as m:
    m.write("loss 0 0.5\n")
    m.write("loss 1 0.25\n")
    m.write("this line is not a metric\n")
    m.write("tiny 1e-320\n")  # subnormal: kept
    m.write("big 99999999999999999999999 1\n")  # a step past INT64_MAX: skipped, not clamped
    m.write("twice 0 1\n")
    m.write("twice 0 2\n")  # a step given twice: both points
    m.write("shards %d" % n)  # the last line, without a newline
print("saved", n, "shards to", out)
