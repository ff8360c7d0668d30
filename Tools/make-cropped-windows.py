#!/usr/bin/python3
"""Writes digit windows as a user crops them from a phone's photo, for reading with no window
given: each window of a read set (labels.csv: file, text, ...; from make-digits.py,
make-validation-sets.py or train-digit-reader.py --write-development), or each display of a find
set (labels.csv: file, kind, value, box; from make-device-photos.py) cut with --pad of its height
to spare, enlarged to a height, as a find set (labels.csv: file, kind, value, box, the box the
whole crop; and a read set's accept and points, so that a window whose truth cannot say where
its decimal point belongs is judged without it, as the read benchmark judges it).

    Tools/make-cropped-windows.py SET OUT [--height 400] [--kind other] [--pad 0.1]
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
    parser.add_argument("--kind", default="other", help="the meter kind a read set's crops are named (water, gas, ...)")
    parser.add_argument("--pad", type=float, default=0.1, help="a find set's display: the share of its height to spare")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    with open(os.path.join(arguments.set, "labels.csv"), newline="") as labels:
        rows = list(csv.DictReader(labels))
    with open(os.path.join(arguments.out, "labels.csv"), "w") as out:
        out.write("file,kind,value,box,accept,points\n")
        for row in rows:
            window = Image.open(os.path.join(arguments.set, row["file"])).convert("RGB")
            kind, value = row.get("kind", arguments.kind), row.get("value", row.get("text"))
            if "box" in row:
                x, y, w, h = map(int, row["box"].split())
                pad = round(arguments.pad * h)
                window = window.crop(
                    (max(0, x - pad), max(0, y - pad), min(window.width, x + w + pad), min(window.height, y + h + pad)))
            width = round(window.width * arguments.height / window.height)
            crop = window.resize((width, arguments.height), Image.BICUBIC)
            name = os.path.splitext(row["file"])[0] + ".jpg"
            crop.save(os.path.join(arguments.out, name), "JPEG", quality=90)
            accept, points = row.get("accept", ""), row.get("points", "")
            out.write(f"{name},{kind},{value},0 0 {width} {arguments.height},{accept},{points}\n")


if __name__ == "__main__":
    main()
