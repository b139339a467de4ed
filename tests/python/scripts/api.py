"""Calls each function of the pipe module; what they return goes into the
output `out` for python_module.sh to check."""
import json
import os
import struct
import zlib

import pipe


def png(width, height):
    """A tiny valid PNG (grey), standard library only."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


got = {
    "lr": pipe.param("lr"),
    "epochs": pipe.param("epochs"),
    "fast": pipe.param("fast"),
    "label": pipe.param("label"),
    "types": [type(pipe.param(n)).__name__ for n in ("lr", "epochs", "fast", "label")],
    "data": open(pipe.input_path("data")).read(),
    "checkpoint_dir": pipe.checkpoint_dir(),
    "latest": pipe.latest_checkpoint(),
    "pythonpath": os.environ.get("PYTHONPATH"),
    "module": pipe.__file__,
}
errors = {}
for what, call in {
    "no_param": lambda: pipe.param("nope"),
    "bad_name": lambda: pipe.log_metric("a b", 1),
    "comma": lambda: pipe.log_metric("a,b", 1),
    "not_number": lambda: pipe.log_metric("x", "abc"),
    "bad_step": lambda: pipe.log_metric("x", 1, step=-1),
    "huge_step": lambda: pipe.log_metric("x", 1, step=2**63),
    "not_image": lambda: pipe.log_image("x", b"GIF89a..."),
    "ragged": lambda: pipe.log_table("t", [[1, 2]], columns=["a"]),
}.items():
    try:
        call()
        errors[what] = None
    except (ValueError, pipe.PipeError) as e:
        errors[what] = f"{type(e).__name__}: {e}"
got["errors"] = errors

for i, loss in enumerate([0.9, 0.5, 0.25]):
    pipe.log_metric("loss", loss)
pipe.log_metric("accuracy", 0.75, step=10)
pipe.log_metric("accuracy", 0.875, step=20)

image = png(4, 3)
got["image_bytes"] = pipe.log_image("sample", image, step=1)
path = os.path.join(os.environ["PIPE_SCRATCH_DIR"], "from-file.png")
with open(path, "wb") as f:
    f.write(image)
got["image_path"] = pipe.log_image("from file", path)
got["table_dicts"] = pipe.log_table("predictions", [{"id": 1, "label": "cat", "p": 0.9, "ok": True},
                                                    {"id": 2, "label": "dog", "p": 0.4, "ok": None}])
got["table_lists"] = pipe.log_table("confusion", [[5, 1], [2, 7]], columns=["pred cat", "pred dog"], step=3)

os.makedirs(pipe.output_path("model"))
with open(os.path.join(pipe.output_path("model"), "weights.txt"), "w") as f:
    f.write("1 2 3")
with open(pipe.output_path("out"), "w") as f:
    json.dump(got, f)
