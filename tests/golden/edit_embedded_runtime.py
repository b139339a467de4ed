#!/usr/bin/env python3
"""A copy of pipec whose embedded runtime has one source file edited in a
comment: what a runtime-only commit does, without building pipec again.

  edit_embedded_runtime.py PIPEC SOURCE OUT

pipec carries the runtime's sources as their bytes (cmake/embed.cmake), so
SOURCE's bytes (a runtime file as pipec copies it into a bundle) stand in the
binary as they are. They must occur there exactly once; the first letter
inside SOURCE's first comment changes case, in OUT, an executable copy of
PIPEC. Prints the offset of the changed byte in SOURCE (from 0).
"""
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: edit_embedded_runtime.py PIPEC SOURCE OUT")
    pipec, source, out = sys.argv[1:]
    with open(pipec, "rb") as f:
        binary = bytearray(f.read())
    with open(source, "rb") as f:
        text = f.read()
    if binary.count(text) != 1:
        sys.exit("edit_embedded_runtime.py: %s occurs %d times in %s, not once"
                 % (source, binary.count(text), pipec))
    start = text.find(b"/*")
    end = text.find(b"*/", start)
    letter = next((i for i in range(start + 2, end) if chr(text[i]).isalpha() and text[i] < 128), -1) \
        if start >= 0 and end > start else -1
    if letter < 0:
        sys.exit("edit_embedded_runtime.py: %s has no comment with a letter in it" % source)
    binary[binary.find(text) + letter] ^= 0x20  # ASCII: upper <-> lower case
    with open(out, "wb") as f:
        f.write(binary)
    os.chmod(out, 0o755)
    print(letter)


if __name__ == "__main__":
    main()
