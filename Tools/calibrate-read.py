#!/usr/bin/python3
"""Fits the Tesseract plugin's calibration (TesseractCalibration) on the read evaluation's sets.

    .build/release/photometer-benchmark-read TRAIN-SETS... --symbols train.jsonl
    .build/release/photometer-benchmark-read TEST-SETS... --symbols test.jsonl
    Tools/calibrate-read.py train.jsonl test.jsonl

Each line of a symbols file is one digit an engine read, aligned with the true digits as the vote
aligns readings: set, engine, confidence (Tesseract's raw) and whether it is right. For Tesseract,
the training digits are cut into bins of equal count by confidence; each bin gives a knot at its
mean confidence and its share of right digits (one right and one wrong added, so that a small bin
does not claim certainty), and the ends are held flat to 0 and 1. No monotonicity is imposed:
Tesseract's confidence on meter digits is not monotone. Printed: the knots as Swift, and for
each engine on the test sets the reliability (bins of confidence against the share right) and
the expected calibration error, raw and calibrated.
"""
import json
import sys

BINS = 10


def load(path):
    return [json.loads(line) for line in open(path)]


def fit(symbols):
    ordered = sorted(symbols, key=lambda symbol: symbol["confidence"])
    size = len(ordered) / BINS
    knots = []
    for index in range(BINS):
        part = ordered[round(index * size):round((index + 1) * size)]
        if not part:
            continue
        confidence = sum(symbol["confidence"] for symbol in part) / len(part)
        right = sum(symbol["right"] for symbol in part)
        knots.append((confidence, (right + 1) / (len(part) + 2)))
    return [(0.0, knots[0][1])] + knots + [(1.0, knots[-1][1])]


def belief(knots, raw):
    raw = min(max(raw, 0.0), 1.0)
    for (x0, y0), (x1, y1) in zip(knots, knots[1:]):
        if raw <= x1:
            return y0 + (y1 - y0) * (raw - x0) / max(x1 - x0, 1e-9)
    return knots[-1][1]


def reliability(pairs, label):
    """pairs: (confidence, right). Prints a table of 10 fixed bins and the expected calibration
    error (the mean |confidence - share right| over bins, weighted by their counts)."""
    print(f"  {label}")
    error = 0.0
    for index in range(10):
        low, high = index / 10, (index + 1) / 10
        part = [(c, r) for c, r in pairs if low <= c < high or (index == 9 and c == 1.0)]
        if not part:
            continue
        mean = sum(c for c, _ in part) / len(part)
        share = sum(r for _, r in part) / len(part)
        error += len(part) * abs(mean - share)
        print(f"    {low:.1f}-{high:.1f}  {len(part):5d} digits  confidence {mean:.3f}  right {share:.3f}")
    print(f"    expected calibration error {error / max(len(pairs), 1):.3f}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    train, test = load(sys.argv[1]), load(sys.argv[2])
    knots = fit([symbol for symbol in train if symbol["engine"] == "tesseract"])
    print("TesseractCalibration.knots:")
    print("  [" + ", ".join(f"({x:.3f}, {y:.3f})" for x, y in knots) + "]")
    print("test sets:")
    for engine in ("tesseract", "digits"):
        symbols = [symbol for symbol in test if symbol["engine"] == engine]
        raw = [(symbol["confidence"], symbol["right"]) for symbol in symbols]
        reliability(raw, f"{engine}, raw ({len(symbols)} digits)")
        if engine == "tesseract":
            reliability([(belief(knots, c), r) for c, r in raw], "tesseract, calibrated")


if __name__ == "__main__":
    main()
