#!/usr/bin/python3
"""Writes digit windows as a user crops them from a phone's photo, for reading with no window
given: each window of a read set (labels.csv: file, text, ...; from make-digits.py,
make-validation-sets.py or train-digit-reader.py --write-development) enlarged to a height, as a
find set (labels.csv: file, kind, value, box, the box the whole crop).

    Tools/make-cropped-windows.py SET OUT [--height 400] [--kind other]
    photometer-benchmark-find OUT --host plugins.json

A crop of a few hundred pixels high is as large as many device photos, so the host must tell it
from a scene: read whole, not searched for rows (WindowChoice.isScene).
"""

import argparse
import csv
import os

from PIL import Image


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", help="a folder of windows with labels.csv")
    parser.add_argument("out")
    parser.add_argument("--height", type=int, default=400, help="the crops' height in pixels")
    parser.add_argument("--kind", default="other", help="the meter kind the find set names (water, gas, ...)")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    with open(os.path.join(arguments.set, "labels.csv"), newline="") as labels:
        rows = list(csv.DictReader(labels))
    with open(os.path.join(arguments.out, "labels.csv"), "w") as out:
        out.write("file,kind,value,box\n")
        for row in rows:
            window = Image.open(os.path.join(arguments.set, row["file"])).convert("RGB")
            width = round(window.width * arguments.height / window.height)
            crop = window.resize((width, arguments.height), Image.BICUBIC)
            name = os.path.splitext(row["file"])[0] + ".jpg"
            crop.save(os.path.join(arguments.out, name), "JPEG", quality=90)
            out.write(f"{name},{arguments.kind},{row['text']},0 0 {width} {arguments.height}\n")


if __name__ == "__main__":
    main()
