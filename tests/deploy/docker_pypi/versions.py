"""Writes what the step sees in its image: six's version and where it was
imported from, and the variables the .pipe file sets."""
import os
import sys

import six

with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.write(f"six {six.__version__} {six.__file__}\n")
    for name in ("OMP_PROC_BIND", "A", "B"):
        out.write(f"{name}={os.environ.get(name, '(unset)')}\n")
