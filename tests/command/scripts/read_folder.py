"""Reads the folder its input is and summarizes it."""
import json
import os
import sys

model, out = os.environ["PIPE_INPUT_MODEL"], sys.argv[1]
assert model == sys.argv[2], (model, sys.argv[2])
with open(os.path.join(model, "config.json"), encoding="utf-8") as f:
    n = json.load(f)["n"]
shards = sorted(os.listdir(os.path.join(model, "shards")))
with open(out, "w", encoding="utf-8") as f:
    f.write("n=%d shards=%s\n" % (n, ",".join(shards)))
