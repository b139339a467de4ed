"""A confusion matrix drawn as PNG bytes with the standard library only
(zlib for the compression and the checksums): no plotting library needed
in the image. Cells shade from white to blue with the row's share, and
hold their count in a 3x5 pixel font."""
import struct
import zlib

# 3x5 digits, one string of 15 pixels each, row by row
DIGITS = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001001001001",
    "8": "111101111101111",
    "9": "111101111001111",
}
SCALE = 4  # font pixels per digit pixel
CELL_W, CELL_H, GRID = 96, 56, 2


def encode_png(width, height, pixels):
    """pixels: height rows of width (r, g, b) tuples; returns the PNG file's bytes."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)  # filter 0 per row
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def confusion_png(matrix):
    """matrix[true][predicted] counts -> PNG bytes, one cell per pair."""
    k = len(matrix)
    width, height = k * CELL_W + GRID, k * CELL_H + GRID
    pixels = [[(160, 160, 160)] * width for _ in range(height)]
    for i, row in enumerate(matrix):
        total = sum(row) or 1
        for j, count in enumerate(row):
            share = count / total
            fill = (int(255 - 225 * share), int(255 - 175 * share), int(255 - 60 * share))
            ink = (255, 255, 255) if share > 0.5 else (20, 20, 20)
            x0, y0 = j * CELL_W + GRID, i * CELL_H + GRID
            for y in range(y0, y0 + CELL_H - GRID):
                pixels[y][x0 : x0 + CELL_W - GRID] = [fill] * (CELL_W - GRID)
            text = str(count)
            tx = x0 + (CELL_W - GRID - len(text) * 4 * SCALE + SCALE) // 2
            ty = y0 + (CELL_H - GRID - 5 * SCALE) // 2
            for n, ch in enumerate(text):
                for p, bit in enumerate(DIGITS[ch]):
                    if bit == "1":
                        px, py = tx + n * 4 * SCALE + (p % 3) * SCALE, ty + (p // 3) * SCALE
                        for y in range(py, py + SCALE):
                            pixels[y][px : px + SCALE] = [ink] * SCALE
    return encode_png(width, height, pixels)
