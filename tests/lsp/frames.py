#!/usr/bin/env python3
"""`pipec lsp` fed what no well-behaved client sends: bodies that are not
JSON, headers without a length, garbage, batches, wrong types, requests
before `initialize`, edits out of range, invalid UTF-8, input cut short.
Each gets a JSON-RPC error or is ignored, and the server goes on answering
(or, at the end of its input, exits): it never crashes or hangs.

usage: frames.py PIPEC"""
import json
import subprocess
import sys

PIPEC = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def frame(body):
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    if isinstance(body, str):
        body = body.encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def run(data, timeout=60):
    """Feeds data, closes stdin; returns the messages written and the exit status."""
    p = subprocess.run([PIPEC, "lsp"], input=data, capture_output=True, timeout=timeout)
    out, msgs = p.stdout, []
    while out:
        head, sep, rest = out.partition(b"\r\n\r\n")
        assert sep, "output is not framed: %r" % out[:200]
        n = int(head.split(b":")[1])
        msgs.append(json.loads(rest[:n]))
        out = rest[n:]
    return msgs, p.returncode, p.stderr.decode(errors="replace")


def req(id_, method, params=None):
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return m


def note(method, params):
    return {"jsonrpc": "2.0", "method": method, "params": params}


INIT = frame(req(1, "initialize", {"capabilities": {}}))
END = frame(req(99, "shutdown")) + frame(note("exit", None))
URI = "file:///nonexistent/t.pipe"


def by_id(msgs, id_):
    return [m for m in msgs if m.get("id") == id_]


def errors(msgs):
    return [m["error"]["code"] for m in msgs if "error" in m]


# 1. Before initialize: requests get ServerNotInitialized, notifications are dropped.
msgs, rc, _ = run(frame(req(5, "textDocument/formatting", {"textDocument": {"uri": URI}}))
                  + frame(note("textDocument/didOpen", {"textDocument": {"uri": URI, "version": 1, "text": "x"}}))
                  + INIT + END)
check(by_id(msgs, 5) and by_id(msgs, 5)[0]["error"]["code"] == -32002, "request before initialize: -32002")
check(not [m for m in msgs if m.get("method") == "textDocument/publishDiagnostics"],
      "a didOpen before initialize is dropped")
check(rc == 0 and by_id(msgs, 99), "shutdown and exit after it: status 0")

# 2. Bodies that are not JSON-RPC: a parse error (id null) or an invalid request; the server goes on.
bad_bodies = [b"{", b"not json", b"", b"\xff\xfe", b'{"jsonrpc":"2.0","id":1,"method":', b"[1,2]", b'"str"', b"42",
              b"[" * 100 + b"]" * 100, b'{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}',
              b'{"jsonrpc":"2.0","id":7,"method":"shutdown","params":5}', b'{"jsonrpc":"2.0","id":8}',
              b'{"jsonrpc":"2.0","id":9,"method":12}']
data = INIT + b"".join(frame(b) for b in bad_bodies) + END
msgs, rc, _ = run(data)
errs = errors(msgs)
check(errs.count(-32700) == 6, "six bodies are not JSON: -32700 each (got %r)" % errs)
check(errs.count(-32600) == 7, "seven are not requests: -32600 each (got %r)" % errs)
check(by_id(msgs, 99) and rc == 0, "still answers shutdown after bad bodies")
check(not by_id(msgs, 7) or "error" in by_id(msgs, 7)[0], "params that are a number: not run")

# 3. Frames that are not frames: no Content-Length, a bad one, garbage with no header end, a huge header.
data = (INIT + b"Content-Type: x\r\n\r\n" + b"Content-Length: abc\r\n\r\n" + b"Content-Length: -5\r\n\r\n"
        + b"x" * 20000 + b"\r\n\r\n" + frame(req(2, "shutdown")) + frame(note("exit", None)))
msgs, rc, err = run(data)
check(by_id(msgs, 2) and "result" in by_id(msgs, 2)[0], "a valid request after broken frames is answered")
check(errors(msgs).count(-32700) >= 4, "each broken frame is reported (got %r)" % errors(msgs))
check(rc == 0, "clean exit after broken frames")

# 4. Unknown methods: requests get -32601, notifications are ignored.
msgs, rc, _ = run(INIT + frame(note("$/cancelRequest", {"id": 1})) + frame(note("pipe/whatever", {}))
                  + frame(req(3, "workspace/noSuch", {})) + frame(req("s", "textDocument/noSuch", {})) + END)
check([m["error"]["code"] for m in msgs if m.get("id") in (3, "s")] == [-32601, -32601], "unknown requests: -32601")
check(len(msgs) == 4, "unknown notifications get no answer (got %d messages)" % len(msgs))

# 5. Edits that make no sense: ranges past the end, backwards, negative, on a closed document,
# a text that is not a string, invalid UTF-8 and NUL bytes in the text.
text = 'step a() {\n    command = ["true"]\n}\n'
ops = [
    note("textDocument/didOpen", {"textDocument": {"uri": URI, "version": 1, "text": text}}),
    note("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 100, "character": 0}, "end": {"line": 200, "character": 5}}, "text": "# end\n"},
        {"range": {"start": {"line": 1, "character": 900}, "end": {"line": 0, "character": 0}}, "text": ""},
        {"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"},
        {"range": {"start": {"line": 0, "character": 0}}, "text": 5}]}),
    note("textDocument/didChange", {"textDocument": {"uri": "file:///other.pipe", "version": 3},
                                    "contentChanges": [{"text": "x"}]}),
    note("textDocument/didChange", {"textDocument": {"uri": URI, "version": 4},
                                    "contentChanges": [{"text": "step \u0000 a(\udc80"}]}),
]
data = INIT + b"".join(frame(o) for o in ops)
data += frame(b'{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"'
              + URI.encode() + b'","version":5},"contentChanges":[{"text":"step \xff\xfe a("}]}}')
data += frame(req(4, "textDocument/formatting", {"textDocument": {"uri": URI}})) + END
msgs, rc, err = run(data)
pubs = [m["params"] for m in msgs if m.get("method") == "textDocument/publishDiagnostics"]
check(rc == 0 and by_id(msgs, 99), "edits out of range: the server lives (stderr: %s)" % err[-500:])
check(pubs and pubs[-1]["version"] == 5 and pubs[-1]["diagnostics"], "diagnostics for the last version (got %r)"
      % [p.get("version") for p in pubs])
check(by_id(msgs, 4) and by_id(msgs, 4)[0].get("result") is None, "formatting a broken file: null")

# 6. Input that ends early: inside a body, inside a header, without exit.
for data in [INIT + b"Content-Length: 100\r\n\r\n{\"jsonrpc\"", INIT + b"Content-Len", INIT,
             INIT + b"Content-Length: 99999999999999\r\n\r\n{}"]:
    msgs, rc, _ = run(data)
    check(rc == 1 and by_id(msgs, 1), "input cut short %r: exit status 1, no crash (got %d)" % (data[-20:], rc))

# 7. `exit` without `shutdown` is status 1; requests after shutdown are refused.
msgs, rc, _ = run(INIT + frame(note("exit", None)))
check(rc == 1, "exit without shutdown: status 1")
msgs, rc, _ = run(INIT + frame(req(2, "shutdown")) + frame(req(3, "textDocument/formatting", {})) + frame(note("exit", None)))
check(rc == 0 and by_id(msgs, 3)[0]["error"]["code"] == -32600, "a request after shutdown: -32600")

# 8. Cancellation: the messages waiting are read before any is answered; a
# request that a later $/cancelRequest names gets -32800 and no result, the
# others their results; a cancel for an answered or unknown id changes nothing.
text = 'step a() {\n    command = ["true"]\n}\n'
pos = {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 5}}
data = (INIT + frame(note("textDocument/didOpen", {"textDocument": {"uri": URI, "version": 1, "text": text}}))
        + frame(req(10, "textDocument/hover", pos)) + frame(req("t", "textDocument/definition", pos))
        + frame(req(12, "textDocument/hover", pos)) + frame(note("$/cancelRequest", {"id": 10}))
        + frame(note("$/cancelRequest", {"id": "t"})) + frame(note("$/cancelRequest", {"id": 1}))
        + frame(note("$/cancelRequest", {"id": 777})) + END)
msgs, rc, _ = run(data)
check([m.get("error", {}).get("code") for m in by_id(msgs, 10) + by_id(msgs, "t")] == [-32800, -32800],
      "cancelled requests: -32800 (got %r)" % (by_id(msgs, 10) + by_id(msgs, "t")))
check(by_id(msgs, 12) and "result" in by_id(msgs, 12)[0] and by_id(msgs, 12)[0]["result"], "the others answered")
check(by_id(msgs, 1) and "result" in by_id(msgs, 1)[0], "initialize is never cancelled")
check(rc == 0 and [m.get("id") for m in msgs if "id" in m] == [1, 10, "t", 12, 99], "answered in order, once each")

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("ok")
