#!/usr/bin/env python3
"""Writes an invocation's media/ by hand, as the `pipe` module's log_image
and log_table do (docs/report.md, "Images and tables"): PNG files drawn
here with zlib alone, a table with a cell that tries to be HTML, a file
named .png whose bytes are not a PNG, and a line that is not JSON.

    media_fixture.py INVOCATION_DIR [--seed N]

--seed changes the pictures (a second run looks different)."""
import argparse
import json
import os
import struct
import zlib


def png(width, height, pixel):
    """An 8-bit RGB PNG; pixel(x, y) gives (r, g, b)."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw.extend(pixel(x, y))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def digit(seed):
    """A 28x28 grey 'digit': a ring, thicker with the seed."""
    def px(x, y):
        d = ((x - 13.5) ** 2 + (y - 13.5) ** 2) ** 0.5
        v = 255 if 6 - seed * 0.5 < d < 10 else 0
        return (v, v, v)
    return png(28, 28, px)


def confusion(seed):
    """A 320x200 heat map, blue to orange."""
    def px(x, y):
        cx, cy = x * 10 // 320, y * 10 // 200
        v = 0.9 if cx == cy else ((cx * 7 + cy * 3 + seed) % 10) / 40
        return (int(40 + 215 * v), int(90 + 80 * v), int(200 - 170 * v))
    return png(320, 200, px)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    media = os.path.join(a.dir, "media")
    os.makedirs(os.path.join(media, "images"), exist_ok=True)
    os.makedirs(os.path.join(media, "tables"), exist_ok=True)
    files = {
        "images/samples-0.png": digit(a.seed),
        "images/samples-1.png": digit(a.seed + 3),
        "images/confusion.png": confusion(a.seed),
        # Not a PNG, whatever its name says: the report must refuse it.
        "images/fake.png": b"<script>alert(1)</script> not an image",
        "tables/predictions.json": json.dumps({
            "columns": ["image", "label", "predicted", "confidence", "note"],
            "rows": [[i, i % 10, (i + a.seed) % 10, round(0.5 + i / 40, 3),
                      "<script>alert('cell')</script>" if i == 0 else ("caf\u00e9 \u2713" if i == 1 else None)]
                     for i in range(12)],
        }).encode(),
    }
    for name, data in files.items():
        with open(os.path.join(media, name), "wb") as f:
            f.write(data)
    lines = [
        {"kind": "image", "name": "samples", "step": 0, "file": "images/samples-0.png", "time_s": 0.5},
        {"kind": "image", "name": "samples", "step": 1, "file": "images/samples-1.png", "time_s": 1.0},
        {"kind": "image", "name": "confusion <b>matrix</b>", "step": None, "file": "images/confusion.png",
         "time_s": 1.2},
        {"kind": "image", "name": "fake", "step": 2, "file": "images/fake.png", "time_s": 1.3},
        {"kind": "image", "name": "escape", "step": 2, "file": "images/../../run.yaml", "time_s": 1.3},
        {"kind": "table", "name": "predictions", "step": 1, "file": "tables/predictions.json", "time_s": 1.4},
    ]
    with open(os.path.join(media, "index.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
        f.write("{not json\n")


if __name__ == "__main__":
    main()
