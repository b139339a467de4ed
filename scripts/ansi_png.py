#!/usr/bin/env python3
"""Renders a terminal capture with ANSI colours (`tmux capture-pane -e -p`)
to a PNG, one monospace cell per character: the screenshots of
docs/editors.md. Handles SGR: reset, bold, reverse, the 16 colours, 256
colours and 24-bit colours, foreground and background.
usage: ansi_png.py CAPTURE.txt OUT.png [COLUMNS ROWS]"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
BASE16 = [(0, 0, 0), (205, 49, 49), (13, 188, 121), (229, 229, 16), (36, 114, 200), (188, 63, 188), (17, 168, 205),
          (229, 229, 229), (102, 102, 102), (241, 76, 76), (35, 209, 139), (245, 245, 67), (59, 142, 234),
          (214, 112, 214), (41, 184, 219), (255, 255, 255)]
DEFAULT_FG, DEFAULT_BG = (220, 220, 220), (30, 30, 30)


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[(n // 6) % 6], steps[n % 6]
    v = 8 + (n - 232) * 10
    return v, v, v


def parse(text):
    """Rows of cells (char, fg, bg, bold)."""
    rows = []
    fg, bg, bold, reverse = None, None, False, False
    for line in text.split("\n"):
        row = []
        for m in re.finditer(r"\x1b\[([0-9;:]*)m|([^\x1b])", line):
            if m.group(2) is not None:
                f, b = fg or DEFAULT_FG, bg or DEFAULT_BG
                row.append((m.group(2), b if reverse else f, f if reverse else b, bold))
                continue
            codes = [int(c) if c else 0 for c in re.split("[;:]", m.group(1))]
            i = 0
            while i < len(codes):
                c = codes[i]
                if c == 0:
                    fg, bg, bold, reverse = None, None, False, False
                elif c == 1:
                    bold = True
                elif c == 22:
                    bold = False
                elif c == 7:
                    reverse = True
                elif c == 27:
                    reverse = False
                elif 30 <= c <= 37:
                    fg = BASE16[c - 30]
                elif 90 <= c <= 97:
                    fg = BASE16[c - 90 + 8]
                elif 40 <= c <= 47:
                    bg = BASE16[c - 40]
                elif 100 <= c <= 107:
                    bg = BASE16[c - 100 + 8]
                elif c == 39:
                    fg = None
                elif c == 49:
                    bg = None
                elif c in (38, 48) and i + 1 < len(codes):
                    if codes[i + 1] == 5 and i + 2 < len(codes):
                        col = color256(codes[i + 2])
                        i += 2
                    elif codes[i + 1] == 2 and i + 4 < len(codes):
                        col = tuple(codes[i + 2:i + 5])
                        i += 4
                    else:
                        col = None
                    if c == 38:
                        fg = col
                    else:
                        bg = col
                i += 1
        rows.append(row)
    return rows


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    rows = parse(text.rstrip("\n"))
    cols = int(sys.argv[3]) if len(sys.argv) > 3 else max(len(r) for r in rows)
    nrows = int(sys.argv[4]) if len(sys.argv) > 4 else len(rows)
    size = 16
    font, bold = ImageFont.truetype(FONT, size), ImageFont.truetype(BOLD, size)
    cw = round(font.getlength("M"))
    ch = size + 5
    img = Image.new("RGB", (cols * cw + 16, nrows * ch + 16), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(rows[:nrows]):
        for x, (c, fg, bg, b) in enumerate(row[:cols]):
            px, py = 8 + x * cw, 8 + y * ch
            if bg != DEFAULT_BG:
                draw.rectangle([px, py, px + cw - 1, py + ch - 1], fill=bg)
            if c != " ":
                draw.text((px, py + 1), c, font=bold if b else font, fill=fg)
    img.save(sys.argv[2])


if __name__ == "__main__":
    main()
