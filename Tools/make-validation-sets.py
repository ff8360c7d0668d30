#!/usr/bin/python3
"""Writes the sets the read engines are measured on, never trained or fitted on:

    Tools/make-validation-sets.py OUT [--validation DIR] [--seed 1]

From ../shared/data/meterdigits-validation (13 real devices that meterdigits does not have), per
device family (gas, water, power, lcd):
  OUT/digits-FAMILY   every settled digit photo (x.0, x.1) as it is, at the camera's resolution;
  OUT/rolling-FAMILY  every digit photo, mid-roll ones included (either neighbour reads right);
  OUT/strips-FAMILY   300 windows (gas: 100) of 5 to 8 photos of one device folder side by side,
                      as a counter's window shows them: the device's photos scaled to one height,
                      gaps and a frame of one colour around them.
  OUT/windows-FAMILY  as many windows by a counter's rule (strips.counter): the last wheel any
                      photo, a wheel left of one passing from 9 to 0 turning with it, the rest
                      settled; the strips above put a mid-roll photo at any place.
  OUT/learn-FOLDER    for `photometer bench OUT/learn-FOLDER --learn 8`, per device folder of 54
                      settled photos or more: 8 strips of 6 of its settled photos, none twice, to
                      confirm, then 40 strips of its other settled photos to read before and after.
And, by Tools/make-digits.py, the rendering style the reader never trains on (DSEG7, DejaVu and
bitmap faces; the reader trains on Tools/digitreader/render.py's):
  OUT/sevenseg        300 seven-segment displays, half with a decimal point ("36.7");
  OUT/wheels          300 wheel counters;
  OUT/dotmatrix       300 dot-matrix displays, half with a decimal point.
Labels as in make-digits.py: OUT/*/labels.csv holds file,text,accept; the sets of real photos add
`points` unlabelled (a device's crop shows its own comma wherever it lands: judged on digits), and
leave out the photos whose label marks a blank display position (BLANK). The photos are written to
OUT, never into the repository.
"""
import argparse
import functools
import importlib.util
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import strips  # noqa: E402

FAMILIES = {"gasmeter": "gas", "watermeter": "water", "powermeter": "power", "lcd": "lcd"}
# Labels, as a file name writes them, that mark a blank display position, not a digit: in
# lcd-lcd_pb, 22 of the 23 photos named 0.0_ show no digit, while those named 0_ show a 0 (its
# README's blanks, `10_`, show a 1 and stay out as labels over 9). A blank placed mid-strip is no
# window a meter shows, and no reader can give its 0.
BLANK = {"lcd-lcd_pb": "0.0"}


def family(folder):
    return FAMILIES[folder.split("-")[0]]


def label_of(name):
    """(digit, tenth) of a file name's label: `4.5_...` or `4_...`; None for a blank LCD place."""
    match = re.match(r"^(\d+)(?:\.(\d))?_", name)
    if not match or int(match.group(1)) > 9:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


@functools.lru_cache(maxsize=1)
def _make_digits():
    """Tools/make-digits.py as a module (its name is no identifier), for its labelling rules."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-digits.py")
    spec = importlib.util.spec_from_file_location("make_digits", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def accepted(digit, tenth):
    """As make-digits.py labels real digits: x.0 and x.1 read x, x.9 x + 1, x.2 to x.8 either."""
    return _make_digits().accepted(f"{digit}.{tenth}")


def nearest(digit, tenth):
    return str((digit + 1) % 10 if tenth >= 5 else digit)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--validation", default=os.path.join(here, "../../shared/data/meterdigits-validation"))
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    devices = {}
    blanks = 0
    for folder in sorted(os.listdir(arguments.validation)):
        path = os.path.join(arguments.validation, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            label = label_of(name)
            if label is None:
                continue
            if BLANK.get(folder) == name.split("_")[0]:
                blanks += 1
            else:
                devices.setdefault(folder, []).append((os.path.join(path, name), label))
    for kind in sorted(set(FAMILIES.values())):
        folders = [folder for folder in devices if family(folder) == kind]
        photos = [photo for folder in folders for photo in devices[folder]]
        for settled_only, name in ((True, "digits"), (False, "rolling")):
            rows = []
            for index, (path, (digit, tenth)) in enumerate(photos):
                if settled_only and tenth > 1:
                    continue
                with open(path, "rb") as file:
                    rows.append((f"{index:05d}.jpg", file.read(), nearest(digit, tenth), accepted(digit, tenth)))
            strips.write_set(os.path.join(arguments.out, f"{name}-{kind}"), rows, points_labelled=False)
        rows = []
        for index in range(100 if kind == "gas" else 300):
            folder = rng.choice(folders)
            labelled = [(path, nearest(*label), accepted(*label)) for path, label in devices[folder]]
            rows.append((f"{index:05d}.png",) + strips.strip(rng, labelled))
        strips.write_set(os.path.join(arguments.out, f"strips-{kind}"), rows, points_labelled=False)
        # Windows by a counter's rule, from a stream of their own (the sets above stay as they were).
        counting = random.Random(f"{arguments.seed}-windows-{kind}")
        rows = []
        for index in range(100 if kind == "gas" else 300):
            folder = counting.choice(folders)
            labelled = [(path, nearest(*label), accepted(*label), label[0] + label[1] / 10)
                        for path, label in devices[folder]]
            rows.append((f"{index:05d}.png",) + strips.counter(counting, labelled))
        strips.write_set(os.path.join(arguments.out, f"windows-{kind}"), rows, points_labelled=False)
        print(f"{kind}: {len(folders)} folders, {len(photos)} photos", file=sys.stderr)
    print(f"left out: {blanks} photos labelled as blank places ({', '.join(BLANK)})", file=sys.stderr)
    for folder in sorted(devices):
        settled = [(path, nearest(*label), accepted(*label)) for path, label in devices[folder] if label[1] <= 1]
        if len(settled) >= 54:
            rows = strips.learning(random.Random(f"{arguments.seed}-{folder}"), settled)
            strips.write_set(os.path.join(arguments.out, f"learn-{folder}"),
                      [(f"{index:05d}.png",) + row for index, row in enumerate(rows)], points_labelled=False)
    make_digits = os.path.join(here, "make-digits.py")
    seed = str(arguments.seed + 100)
    subprocess.run([make_digits, os.path.join(arguments.out, "sevenseg"), "--kind", "sevenseg", "--count", "300",
                    "--seed", seed, "--points", "0.5"], check=True)
    subprocess.run([make_digits, os.path.join(arguments.out, "wheels"), "--kind", "wheels", "--count", "300",
                    "--seed", seed], check=True)
    if all(os.path.exists(face) for face in _make_digits().DOT_FACES):
        subprocess.run([make_digits, os.path.join(arguments.out, "dotmatrix"), "--kind", "dotmatrix", "--count", "300",
                        "--seed", seed, "--points", "0.5"], check=True)
    else:
        print(f"dotmatrix: left out; apt-get install {_make_digits().DOT_FACES_PACKAGES} to write it", file=sys.stderr)


if __name__ == "__main__":
    main()
