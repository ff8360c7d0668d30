#!/usr/bin/env python3
"""Compares two runs of the read benchmark window by window: what a change to a network, a
decoding or a vote gains and loses, and how much of that a draw could explain.

    .build/release/photometer-benchmark-read SETS... --readings before.jsonl
    .build/release/photometer-benchmark-read SETS... [--reader-model NEW.onnx] --readings after.jsonl
    Tools/compare-readings.py before.jsonl after.jsonl [--engine vote]
    Tools/compare-readings.py before.jsonl --vote a.jsonl b.jsonl c.jsonl

Per set: the exact rate before and after, the windows newly right and newly wrong, and the
paired standard error of the difference (McNemar's: the square root of the windows that changed,
over the set's size). A set's rate moves by chance within about two of those; rates of
separately drawn windows would vary more (a training's draw moves a development set about 2
points). The runs must read the same sets: windows pair by set and file name.

With `--vote`, "after" is the runs' vote on each window, whole readings as strings: the reading
most runs give, the surest one when no two agree; judged as the benchmark judges (the truth's
accepted digits per place, points only where the truth labels them). What several trainings of
the reader would read together, measured before building it.
"""
import argparse
import json
import math
import sys
from collections import Counter, OrderedDict


def lines(path, engine):
    """{set: {file: line}} of one engine's lines, sets in the order they were read."""
    sets = OrderedDict()
    with open(path) as file:
        for number, line in enumerate(file, 1):
            row = json.loads(line)
            if "accepted" not in row:
                sys.exit(f"{path}:{number} lacks the window's file and truth: write it again with this "
                         "photometer-benchmark-read")
            if row["engine"] == engine:
                sets.setdefault(row["set"], {})[row["file"]] = row
    if not sets:
        sys.exit(f"{path} holds no reading of the engine {engine!r}: pass --engine (reader, vote, ...)")
    return sets


def load(path, engine):
    """{set: {file: exact}} of one engine's lines."""
    return OrderedDict((name, {file: bool(row["exact"]) for file, row in rows.items()})
                       for name, rows in lines(path, engine).items())


def right(row, text):
    """Whether `text` reads the window of `row` right, as LabelledImage.isRight judges."""
    if not row["pointsLabelled"]:
        text = text.replace(".", "")
    return len(text) == len(row["accepted"]) and all(char in allowed for char, allowed in zip(text, row["accepted"]))


def vote(paths, engine):
    """{set: {file: exact}} of the runs' vote: the most given reading, else the surest."""
    runs = [lines(path, engine) for path in paths]
    voted = OrderedDict()
    for name, rows in runs[0].items():
        voted[name] = {}
        for file, row in rows.items():
            readings = [run[name][file] for run in runs]
            counts = Counter(reading["text"] for reading in readings)
            text, times = counts.most_common(1)[0]
            if times == 1:
                text = max(readings, key=lambda reading: reading["confidence"])["text"]
            voted[name][file] = right(row, text)
    return voted


def compare(before, after):
    """One row per set both runs read: (set, windows, rate before, rate after, newly right,
    newly wrong, paired standard error), rates and error in points."""
    rows = []
    for name, old in before.items():
        new = after.get(name)
        if new is None:
            continue
        if old.keys() != new.keys():
            sys.exit(f"set {name} holds other windows in the two runs: read the same folders")
        gained = sum(1 for file in old if new[file] and not old[file])
        lost = sum(1 for file in old if old[file] and not new[file])
        count = len(old)
        rows.append((name, count, 100 * sum(old.values()) / count, 100 * sum(new.values()) / count,
                     gained, lost, 100 * math.sqrt(gained + lost) / count))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after", nargs="?")
    parser.add_argument("--vote", nargs="+", metavar="RUN", help="compare with these runs' vote instead")
    parser.add_argument("--engine", default="vote", help="whose readings to compare (default: the vote)")
    arguments = parser.parse_args()
    if (arguments.after is None) == (arguments.vote is None):
        parser.error("give either AFTER or --vote RUN...")
    after = vote(arguments.vote, arguments.engine) if arguments.vote else load(arguments.after, arguments.engine)
    rows = compare(load(arguments.before, arguments.engine), after)
    if not rows:
        sys.exit("the two runs share no set")
    print(f"{'set':24s} {'windows':>7s} {'before':>7s} {'after':>7s} {'change':>7s} "
          f"{'newly right':>11s} {'newly wrong':>11s} {'paired SE':>9s}")
    for name, count, old, new, gained, lost, error in rows:
        print(f"{name:24s} {count:7d} {old:6.1f}% {new:6.1f}% {new - old:+7.1f} {gained:11d} {lost:11d} "
              f"{error:9.1f}")
    print(f"{'sum of the rates':24s} {'':7s} {'':7s} {'':7s} {sum(row[3] - row[2] for row in rows):+7.1f}")


if __name__ == "__main__":
    main()
