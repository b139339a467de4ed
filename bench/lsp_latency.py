#!/usr/bin/env python3
"""Times `pipec lsp` from a didChange to the publishDiagnostics for that
version: opens FILE, then sends K one-character changes (alternately adding
an error on a middle line and taking it away), each after the previous
one's diagnostics arrived, and prints "BEST MEDIAN" in seconds (wall, from
writing the change to reading its diagnostics). The first publish (the
open) is not counted.
usage: lsp_latency.py PIPEC FILE [K]"""
import json
import os
import statistics
import subprocess
import sys
import time

pipec, path = sys.argv[1], os.path.abspath(sys.argv[2])
k = int(sys.argv[3]) if len(sys.argv) > 3 else 10
uri = "file://" + path
text = open(path, encoding="utf-8").read()
lines = text.split("\n")
# A line in the middle of the pipeline: `    aI = sI(data = ..., scale = scale, ...)`.
row = next(i for i in range(len(lines) // 2 + len(lines) // 4, len(lines)) if " = s" in lines[i] and "scale = scale" in lines[i])
col = lines[row].index("scale = scale") + len("scale = ")

p = subprocess.Popen([pipec, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def send(msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def recv():
    length = None
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("lsp_latency.py: the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def wait_diagnostics(version):
    while True:
        m = recv()
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
            return m["params"]["diagnostics"]


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None}})
while recv().get("id") != 1:
    pass
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
      "params": {"textDocument": {"uri": uri, "languageId": "pipe", "version": 1, "text": text}}})
base = len(wait_diagnostics(1))
times = []
for v in range(2, k + 2):
    broken = v % 2 == 0  # `scale = scale` becomes `scale = xscale` (an unknown name), then back
    rng = {"start": {"line": row, "character": col}, "end": {"line": row, "character": col if broken else col + 1}}
    t0 = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange",
          "params": {"textDocument": {"uri": uri, "version": v},
                     "contentChanges": [{"range": rng, "text": "x" if broken else ""}]}})
    diags = wait_diagnostics(v)
    times.append(time.perf_counter() - t0)
    if len(diags) != base + (1 if broken else 0):
        sys.exit(f"lsp_latency.py: version {v}: {len(diags)} diagnostics, expected {base + broken}")
send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
while recv().get("id") != 2:
    pass
send({"jsonrpc": "2.0", "method": "exit"})
p.stdin.close()
if p.wait(timeout=60) != 0:
    sys.exit("lsp_latency.py: the server did not exit cleanly")
print(f"{min(times):.4f} {statistics.median(times):.4f}")
