#!/usr/bin/env python3
"""Checks that a PNG (a screenshot of the report) is not blank: decoded with
zlib alone (8-bit RGB or RGBA, not interlaced, as Chromium writes them).

    png_check.py FILE [--width N] [--min-colors N] [--min-ink PERCENT] [--has-color R,G,B[:N]]...

--width: the image is this wide; --min-colors: at least this many distinct
colours; --min-ink: at least this percent of pixels are not near-white; --has-color: at least N (default 20) pixels
within 6 of that colour in each channel (a colour only a decoded image draws).
Prints what it measured; exit 0 when it passes, 1 otherwise."""
import argparse
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    if not header:
        raise ValueError("no IHDR chunk")
    w, h, depth, ctype, _, _, interlace = header
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((a + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            raise ValueError("bad filter %d" % f)
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--width", type=int, default=0)
    ap.add_argument("--min-colors", type=int, default=16)
    ap.add_argument("--min-ink", type=float, default=2.0)
    ap.add_argument("--has-color", action="append", default=[])
    a = ap.parse_args()
    try:
        w, h, bpp, rows = decode(a.file)
    except (OSError, ValueError, zlib.error) as e:
        print("%s: %s" % (a.file, e))
        return 1
    colors, ink, total = set(), 0, 0
    for y in range(0, h, 2):  # every other row and column: plenty, and fast
        row = rows[y]
        for x in range(0, w * bpp, 2 * bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            colors.add((r >> 2, g >> 2, b >> 2))
            ink += r < 235 or g < 235 or b < 235
            total += 1
    share = 100.0 * ink / max(total, 1)
    print("%s: %dx%d, %d colours, %.1f%% ink" % (a.file, w, h, len(colors), share))
    problems = []
    if a.width and w != a.width:
        problems.append("%d pixels wide, expected %d" % (w, a.width))
    if len(colors) < a.min_colors:
        problems.append("only %d colours (at least %d)" % (len(colors), a.min_colors))
    if share < a.min_ink:
        problems.append("only %.1f%% of it is not white (at least %.1f%%)" % (share, a.min_ink))
    for want in a.has_color:
        rgb, _, count = want.partition(":")
        r0, g0, b0 = (int(v) for v in rgb.split(","))
        need, found = int(count or 20), 0
        for row in rows:
            for x in range(0, w * bpp, bpp):
                if abs(row[x] - r0) <= 6 and abs(row[x + 1] - g0) <= 6 and abs(row[x + 2] - b0) <= 6:
                    found += 1
        print("%s: %d pixels of colour %s" % (a.file, found, rgb))
        if found < need:
            problems.append("%d pixels of colour %s, at least %d expected (an image not decoded?)" % (found, rgb, need))
    for p in problems:
        print("%s: blank? %s" % (a.file, p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
