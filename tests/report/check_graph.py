#!/usr/bin/env python3
"""Checks the geometry of a report's graph: every edge starts at one box
and ends at another, and no part of it passes through a box it does not
connect (an edge hidden behind a box is a failure).

    check_graph.py REPORT.html [--min-edges N] [--min-routed N]

Reads the <svg class="graph">: the boxes are the first <rect> of each
<g class="node">, the edges the <path class="edge ..."> elements (M, C
and L commands, absolute). Curves are sampled finely, lines every pixel."""
import argparse
import re
import sys

NUM = r"(-?[0-9.]+)"


def boxes_and_edges(html):
    m = re.search(r'<svg class="graph".*?</svg>', html, re.S)
    if not m:
        raise SystemExit("no <svg class=\"graph\"> in the report")
    svg = m.group(0)
    boxes = []
    for g in re.finditer(r'<g class="node[^"]*">.*?</g>', svg, re.S):
        r = re.search(r'<rect x="%s" y="%s" width="%s" height="%s"' % (NUM, NUM, NUM, NUM), g.group(0))
        x, y, w, h = map(float, r.groups())
        boxes.append((x, y, x + w, y + h))
    edges = [(cls, d) for cls, d in re.findall(r'<path class="(edge[^"]*)" d="([^"]*)"', svg)]
    return boxes, edges


def points(d):
    """The points along a path of M, L and C commands."""
    tokens = re.findall(r"[MLC]|-?[0-9.]+", d)
    pts, cur, i = [], None, 0
    while i < len(tokens):
        cmd = tokens[i]
        if cmd in "ML":
            p = (float(tokens[i + 1]), float(tokens[i + 2]))
            i += 3
            if cmd == "L" and cur:
                n = max(1, int(max(abs(p[0] - cur[0]), abs(p[1] - cur[1]))))
                pts += [(cur[0] + (p[0] - cur[0]) * k / n, cur[1] + (p[1] - cur[1]) * k / n) for k in range(1, n + 1)]
            else:
                pts.append(p)
            cur = p
        elif cmd == "C":
            c = [float(t) for t in tokens[i + 1:i + 7]]
            i += 7
            p0, p1, p2, p3 = cur, (c[0], c[1]), (c[2], c[3]), (c[4], c[5])
            for k in range(1, 201):
                t = k / 200
                u = 1 - t
                pts.append(tuple(u ** 3 * p0[j] + 3 * u * u * t * p1[j] + 3 * u * t * t * p2[j] + t ** 3 * p3[j]
                                 for j in range(2)))
            cur = p3
        else:
            raise SystemExit("unexpected path command %r in %r" % (cmd, d))
    return pts


def near(p, b, margin):
    return b[0] - margin <= p[0] <= b[2] + margin and b[1] - margin <= p[1] <= b[3] + margin


def inside(p, b):
    return b[0] + 1 < p[0] < b[2] - 1 and b[1] + 1 < p[1] < b[3] - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--min-edges", type=int, default=1)
    ap.add_argument("--min-routed", type=int, default=0)
    a = ap.parse_args()
    boxes, edges = boxes_and_edges(open(a.report, encoding="utf-8").read())
    errors = []
    for cls, d in edges:
        pts = points(d)
        ends = [k for k, b in enumerate(boxes) if near(pts[0], b, 4) or near(pts[-1], b, 4)]
        start = [k for k, b in enumerate(boxes) if near(pts[0], b, 4)]
        end = [k for k, b in enumerate(boxes) if near(pts[-1], b, 4)]
        if not start or not end:
            errors.append("edge %s does not start and end at a box" % d)
            continue
        for k, b in enumerate(boxes):
            if k in ends:
                continue
            hit = next((p for p in pts if inside(p, b)), None)
            if hit:
                errors.append("edge %s passes through box %d %s at (%.1f, %.1f)" % (d, k, b, hit[0], hit[1]))
    routed = sum("routed" in cls for cls, _ in edges)
    if len(edges) < a.min_edges:
        errors.append("%d edges, expected at least %d" % (len(edges), a.min_edges))
    if routed < a.min_routed:
        errors.append("%d routed edges, expected at least %d" % (routed, a.min_routed))
    for e in errors:
        print("FAIL:", e)
    print("%d boxes, %d edges (%d routed around boxes), %d crossing a box"
          % (len(boxes), len(edges), routed, sum("passes through" in e for e in errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
