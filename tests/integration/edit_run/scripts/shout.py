# Prints what `say` wrote; the test edits the marker and makes it fail.
import sys

with open(sys.argv[1]) as f:
    said = f.read().strip()
print("py-v1", said.upper(), flush=True)
