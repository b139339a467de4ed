#!/usr/bin/env python3
"""The digests in a generated bundle that follow the embedded runtime, as
numbered placeholders, so that golden files move only when output moves.

Two kinds, both 16 hex digits that pipec derives from what an image is built
from (every image holds the runtime's sources, so any runtime edit changes
them all):

  image tags         REGISTRY/NAME:TAG          -> REGISTRY/NAME:{TAG-1}
  Batch definitions  NAME-DIGEST (batch/*.json) -> NAME-{DEFINITION-1}

Only the digest is replaced: the registry and the name stay, so a renamed
image or definition still shows. Each distinct digest of a bundle gets its
own number, in order of first appearance (the files in path order, those
whose names hold a digest last, since their order follows the digests), the
same in every file and file name: two invocations that come to share an
image, or one that moves to another image, still change the goldens.

  placeholders.py copy SRC DST   the files of SRC named on stdin (paths
                                 relative to SRC) into DST, digests replaced
                                 in their names and contents, modes kept
  placeholders.py list SRC       for the files named on stdin, one line per
                                 distinct digest: KIND NAME DIGEST PLACEHOLDER
"""
import os
import re
import sys

# A tag follows `/NAME:` (REGISTRY/NAME:TAG); a definition name is a whole
# word NAME-DIGEST (Batch allows letters, digits, - and _ in it).
KINDS = (
    ("TAG", re.compile(rb"(?<=/)([a-z0-9][a-z0-9._-]*):([0-9a-f]{16})(?![0-9A-Za-z_.-])"), b":"),
    ("DEFINITION", re.compile(rb"(?<![0-9A-Za-z_-])([0-9A-Za-z][0-9A-Za-z_-]*)-([0-9a-f]{16})(?![0-9A-Za-z_-])"), b"-"),
)


class Placeholders:
    def __init__(self):
        self.numbers = {kind: {} for kind, _, _ in KINDS}
        self.seen = []  # (kind, name, digest, placeholder) in order of first appearance

    def _placeholder(self, kind, name, digest):
        numbers = self.numbers[kind]
        if digest not in numbers:
            numbers[digest] = b"{%s-%d}" % (kind.encode(), len(numbers) + 1)
            self.seen.append((kind, name.decode(), digest.decode(), numbers[digest].decode()))
        return numbers[digest]

    def replace(self, data):
        for kind, pattern, sep in KINDS:
            data = pattern.sub(lambda m, k=kind, s=sep: m.group(1) + s + self._placeholder(k, m.group(1), m.group(2)),
                               data)
        return data


def scan_order(paths):
    """Path order, the paths that hold a digest last."""
    def named_by_digest(p):
        return any(pattern.search(p.encode()) for _, pattern, _ in KINDS)
    return sorted(paths, key=lambda p: (named_by_digest(p), p))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("copy", "list") or len(sys.argv) != (4 if sys.argv[1] == "copy" else 3):
        sys.exit("usage: placeholders.py copy SRC DST | list SRC (paths relative to SRC on stdin)")
    mode, src = sys.argv[1], sys.argv[2]
    paths = [line for line in sys.stdin.read().split("\n") if line]
    ph = Placeholders()
    for rel in scan_order(paths):
        with open(os.path.join(src, rel), "rb") as f:
            data = ph.replace(f.read())
        # The name after the contents: a file named by a digest reads its own
        # name first (jobDefinitionName), which keeps numbers in content order.
        out_rel = ph.replace(rel.encode()).decode()
        if mode == "copy":
            out = os.path.join(sys.argv[3], out_rel)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with open(out, "wb") as f:
                f.write(data)
            os.chmod(out, os.stat(os.path.join(src, rel)).st_mode & 0o777)
    if mode == "list":
        for entry in ph.seen:
            print(" ".join(entry))


if __name__ == "__main__":
    main()
