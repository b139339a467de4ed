"""pipe/npy.h against numpy itself, both ways.

    npy_numpy.py NPY_TOOL WORK_DIR

Run with the tests' Python environment (build/venv, made by
scripts/install-deps.sh), which has numpy. npy_tool (npy_tool.c) writes an
array of each element type that numpy.load must read exactly; numpy writes
arrays of each type in both byte orders, of 0 to 4 dimensions, in format
versions 1.0, 2.0 and 3.0, that npy_tool must read exactly; and numpy's
Fortran-order, bool, int16, complex and string arrays must be refused with
a message that says why.
"""
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("FAIL: numpy is missing from %s: run scripts/install-deps.sh" % sys.prefix)

tool, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def values(dtype, n):
    """Element i of each type, as npy_tool.c computes it."""
    i = np.arange(n, dtype=np.int64)
    kind = np.dtype(dtype).newbyteorder("=").name
    if kind == "float32":
        return (i * 0.5 - 3).astype(np.float32)
    if kind == "float64":
        return i / 3.0 - 1
    if kind == "int32":
        return (i * 7 - 50).astype(np.int32)
    if kind == "int64":
        return i * 3000000001 - 7
    if kind == "uint8":
        return ((i * 37) % 256).astype(np.uint8)
    if kind == "float16":
        return (i * 0.25 - 0.5).astype(np.float16)
    raise ValueError(kind)


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# 1. C writes, numpy reads.
subprocess.run([tool, "write", work], check=True)
written = {
    "c_f32.npy": ("float32", (2, 3, 4)),
    "c_f64.npy": ("float64", (7,)),
    "c_i32.npy": ("int32", (3, 5)),
    "c_i64.npy": ("int64", ()),
    "c_u8.npy": ("uint8", (4, 4, 2)),
    "c_f16.npy": ("float16", (6,)),
    "c_empty.npy": ("float32", (3, 0)),
}
for name, (dtype, shape) in written.items():
    a = np.load(os.path.join(work, name), allow_pickle=False)
    expect(a.dtype == np.dtype(dtype), "%s: numpy reads dtype %s, expected %s" % (name, a.dtype, dtype))
    expect(a.shape == shape, "%s: numpy reads shape %s, expected %s" % (name, a.shape, shape))
    expect(a.flags["C_CONTIGUOUS"], "%s: not C order" % name)
    want = values(dtype, int(np.prod(shape))).reshape(shape)
    expect(np.array_equal(a, want), "%s: numpy reads other values" % name)
print("numpy.load read %d arrays written by pipe_npy_write" % len(written))

# 2. numpy writes, C reads: each type in both byte orders, 0 to 4 dimensions,
# versions 1.0 (numpy.save), 2.0 and 3.0.
cases = {}
shapes = [(), (5,), (2, 3), (2, 1, 3), (2, 2, 1, 2)]
for kind in ["f4", "f8", "i4", "i8", "u1", "f2"]:
    for order in ["<", ">"] if kind != "u1" else ["|"]:
        for k, shape in enumerate(shapes):
            dtype = np.dtype(order + kind)
            a = values(dtype, int(np.prod(shape))).astype(dtype).reshape(shape)
            name = "np_%s%s_%dd.npy" % ({"<": "le_", ">": "be_", "|": ""}[order], kind, len(shape))
            np.save(os.path.join(work, name), a)
            cases[name] = (dtype.newbyteorder("=").name, shape)
for version in [(2, 0), (3, 0)]:
    name = "np_v%d.npy" % version[0]
    a = values("int64", 6).reshape(3, 2)
    with open(os.path.join(work, name), "wb") as f:
        np.lib.format.write_array(f, a, version=version)
    cases[name] = ("int64", (3, 2))
# A strided view is saved in C order.
view = values("float64", 24).reshape(4, 6)[:, ::2]
np.save(os.path.join(work, "np_view.npy"), np.ascontiguousarray(view))
cases["np_view.npy"] = (None, (4, 3))

proc = subprocess.run([tool, "check"] + [os.path.join(work, n) for n in sorted(cases)], capture_output=True,
                      text=True)
lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if not line.startswith("FAIL"))
for line in proc.stdout.splitlines():
    if line.startswith("FAIL") and not line.startswith("FAIL np_view"):
        expect(False, line)
for name, (dtype, shape) in sorted(cases.items()):
    if dtype is None:
        continue  # its values are not the formula's
    shape_text = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    expect(lines.get(name) == "%s %s" % (dtype, shape_text),
           "%s: npy_tool read `%s`, expected `%s %s`" % (name, lines.get(name), dtype, shape_text))
# The view: check its values here (npy_tool's formula does not apply).
b = np.load(os.path.join(work, "np_view.npy"))
expect(np.array_equal(b, view), "np_view.npy: numpy round trip")
print("pipe_npy_read read %d arrays written by numpy" % (len(cases) - 1))

# 3. What pipe_npy refuses, with the reason.
refused = {
    "fortran.npy": (np.asfortranarray(values("int32", 6).reshape(2, 3)), "Fortran order"),
    "bool.npy": (np.array([True, False]), "element type '|b1' is not supported"),
    "int16.npy": (np.arange(3, dtype="<i2"), "element type '<i2' is not supported"),
    "complex.npy": (np.arange(3, dtype="<c8"), "element type '<c8' is not supported"),
    "text.npy": (np.array(["abc"]), "element type '<U3' is not supported"),
}
for name, (a, reason) in refused.items():
    path = os.path.join(work, name)
    np.save(path, a)
    proc = subprocess.run([tool, "reject", path], capture_output=True, text=True)
    expect(proc.returncode == 0, "%s: read although it should be refused" % name)
    expect(reason in proc.stdout and path in proc.stdout,
           "%s: the message `%s` lacks `%s` or the file's path" % (name, proc.stdout.strip(), reason))
print("pipe_npy_read refused %d arrays it cannot read, saying why" % len(refused))

if failures:
    sys.exit("%d failure(s)" % len(failures))
print("ok")
