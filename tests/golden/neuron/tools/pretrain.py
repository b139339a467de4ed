"""Stands in for a Neuron training script (the golden case only builds)."""
import sys

with open(sys.argv[-1], "w", encoding="utf-8") as f:
    f.write("model\n")
