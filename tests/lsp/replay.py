#!/usr/bin/env python3
"""The fuzz corpus (tests/fuzz/corpus, every diagnostics case, every
example) replayed through `pipec lsp`: each file opened, then every request
the server answers at positions all over it. Every request gets a result
(not an error), every open its diagnostics, and the server exits 0.

usage: replay.py PIPEC FILE..."""
import json
import pathlib
import subprocess
import sys

PIPEC, files = sys.argv[1], sys.argv[2:]


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def position(text, at):
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    return {"line": line, "character": len(text[start:at].encode("utf-16-le")) // 2}


out = [frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}})]
ids, uris, next_id = {}, [], 1
for path in files:
    text = pathlib.Path(path).read_bytes().decode("utf-8", errors="replace")
    uri = pathlib.Path(path).resolve().as_uri()
    uris.append(uri)
    out.append(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "pipe", "version": 1, "text": text}}}))
    td = {"uri": uri}
    requests = [("textDocument/documentSymbol", {}), ("textDocument/semanticTokens/full", {}),
                ("textDocument/formatting", {"options": {"tabSize": 4, "insertSpaces": True}}),
                ("workspace/symbol", {"query": "a"})]
    for at in range(0, len(text) + 1, max(1, len(text) // 12)):
        p = position(text, at)
        requests += [("textDocument/hover", {"position": p}), ("textDocument/definition", {"position": p}),
                     ("textDocument/references", {"position": p, "context": {"includeDeclaration": True}}),
                     ("textDocument/completion", {"position": p}), ("textDocument/prepareRename", {"position": p}),
                     ("textDocument/codeAction", {"range": {"start": p, "end": p}, "context": {"diagnostics": []}}),
                     ("textDocument/rangeFormatting", {"range": {"start": position(text, 0), "end": p},
                                                       "options": {"tabSize": 4, "insertSpaces": True}})]
    for method, params in requests:
        ids[next_id] = (path, method)
        out.append(frame({"jsonrpc": "2.0", "id": next_id, "method": method, "params": dict(params, textDocument=td)}))
        next_id += 1
    out.append(frame({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": td}}))
out.append(frame({"jsonrpc": "2.0", "id": next_id, "method": "shutdown"}))
out.append(frame({"jsonrpc": "2.0", "method": "exit"}))

p = subprocess.run([PIPEC, "lsp"], input=b"".join(out), capture_output=True, timeout=600)
data, answered, published, failures = p.stdout, set(), set(), []
while data:
    head, _, rest = data.partition(b"\r\n\r\n")
    n = int(head.split(b":")[1])
    msg = json.loads(rest[:n])
    data = rest[n:]
    if "error" in msg:
        failures.append("%s: %s" % (ids.get(msg.get("id")), msg["error"]))
    if "id" in msg:
        answered.add(msg["id"])
    if msg.get("method") == "textDocument/publishDiagnostics" and "version" in msg["params"]:
        published.add(msg["params"]["uri"])
missing = [ids[i] for i in ids if i not in answered]
failures += ["no answer: %s %s" % m for m in missing[:10]]
failures += ["no diagnostics for %s" % u for u in uris if u not in published][:10]
if p.returncode != 0:
    failures.append("exit status %d; stderr: %s" % (p.returncode, p.stderr.decode(errors="replace")[-2000:]))
for f in failures:
    print("FAIL:", f)
print("%d files, %d requests" % (len(files), len(ids)))
sys.exit(1 if failures else 0)
