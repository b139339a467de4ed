"""A command step that floods its log (logs.sh, disk_full.sh): BYTES of
numbered lines of LINE bytes each ("line N xxx...", the first "line 1"),
SLEEP_MS apart, then "flood done: N lines" and exit status CODE.

  python3 flood.py BYTES LINE SLEEP_MS CODE
"""
import sys
import time

total, width, sleep_ms, code = (int(a) for a in sys.argv[1:5])
out = sys.stdout
n = 0
written = 0
while written < total:
    n += 1
    text = f"line {n} "
    text += "x" * max(0, width - len(text) - 1) + "\n"
    out.write(text)
    written += len(text)
    if sleep_ms:
        out.flush()
        time.sleep(sleep_ms / 1000)
out.write(f"flood done: {n} lines\n")
out.flush()
sys.exit(code)
