"""The string literals of .pipe files, as the deploy checks compare
generated values with what the user wrote (k8s_check.py, skypilot_check.py)."""
import os


def pipe_literals(top):
    """Every string literal of the .pipe files under top, unescaped."""
    lits = set()
    for dirpath, _, files in os.walk(top):
        for f in files:
            if not f.endswith(".pipe"):
                continue
            s = open(os.path.join(dirpath, f), encoding="utf-8").read()
            i, n = 0, len(s)
            while i < n:
                c = s[i]
                if c == "#":
                    j = s.find("\n", i)
                    i = n if j < 0 else j
                elif c == '"':
                    i += 1
                    buf = []
                    while i < n and s[i] not in '"\n':
                        if s[i] == "\\" and i + 1 < n:
                            buf.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(s[i + 1], s[i + 1]))
                            i += 2
                        else:
                            buf.append(s[i])
                            i += 1
                    lits.add("".join(buf))
                    i += 1
                else:
                    i += 1
    return lits
