#!/usr/bin/env python3
"""Write a synthetic "mnist-like" CSV for the single-GPU example.

Ten classes of 8x8 images (64 features in [0, 1]): each class is a fixed
random stroke pattern, each example that pattern shifted by up to one pixel
with noise added. One example per line, the label first.

    python3 make_data.py [--rows 6000] [--seed 1] [-o data/mnist-like.csv]
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="data/mnist-like.csv")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    side, classes = 8, 10
    protos = []
    for _ in range(classes):
        img = [[0.0] * side for _ in range(side)]
        r, c = rng.randrange(side), rng.randrange(side)
        for _ in range(14):  # a random walk draws the class's stroke
            img[r][c] = 1.0
            r = min(side - 1, max(0, r + rng.choice((-1, 0, 1))))
            c = min(side - 1, max(0, c + rng.choice((-1, 0, 1))))
        protos.append(img)

    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w", encoding="ascii") as out:
        out.write("label," + ",".join(f"px{i}" for i in range(side * side)) + "\n")
        for _ in range(args.rows):
            label = rng.randrange(classes)
            dr, dc = rng.choice((-1, 0, 1)), rng.choice((-1, 0, 1))
            row = []
            for r in range(side):
                for c in range(side):
                    rr, cc = r - dr, c - dc
                    v = protos[label][rr][cc] if 0 <= rr < side and 0 <= cc < side else 0.0
                    v = min(1.0, max(0.0, v * rng.uniform(0.6, 1.0) + rng.gauss(0.0, 0.15)))
                    row.append(f"{v:.2f}")
            out.write(f"{label}," + ",".join(row) + "\n")
    print(f"wrote {args.rows} rows to {args.output}")


if __name__ == "__main__":
    main()
