#!/usr/bin/python3
"""The blind anchor of issue 20 on the project's own images: HOG features and an RBF SVM from
OpenCV's ml module, trained on meterdigits' settled digit photos only, reading each set of single
digits `Tools/make-validation-sets.py` writes, per family.

    Tools/anchor-hog-svm.py /tmp/val/digits-gas /tmp/val/digits-water /tmp/val/digits-power \
        /tmp/val/digits-lcd

(Debian's python3-opencv and python3-numpy: OpenCV 4.6, whose ml module and HOG the pip wheels of
OpenCV 5 no longer carry.) The SVM's C and gamma
are the pair of a small grid that reads meterdigits' development meters best when trained on the
others (`compose.load`'s meter split); the anchor is then trained on every meter's settled
photos with that pair. Nothing is fitted on the sets it reads. Each set is judged as
`photometer-benchmark-read` judges a single digit: right when the answer is one the labels
accept. Prints the development grid, then per set the share read right and the total.
"""
import argparse
import csv
import os
import sys

import cv2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import compose  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH, HEIGHT = 20, 32
# 3 x 3 blocks of 2 x 2 cells of 5 x 8 pixels, 9 orientations: 324 values a digit.
HOG = cv2.HOGDescriptor((WIDTH, HEIGHT), (10, 16), (5, 8), (5, 8), 9)
GRID_C = (1.0, 10.0, 100.0)
GRID_GAMMA = (0.05, 0.2, 0.8)


def features(image):
    """The HOG of a photo as meterdigits' are taken: grey, 20 x 32."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = cv2.resize(grey, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA)
    return HOG.compute(grey).reshape(-1)


def train(samples, labels, c, gamma):
    svm = cv2.ml.SVM_create()
    svm.setType(cv2.ml.SVM_C_SVC)
    svm.setKernel(cv2.ml.SVM_RBF)
    svm.setC(c)
    svm.setGamma(gamma)
    svm.train(np.asarray(samples, np.float32), cv2.ml.ROW_SAMPLE, np.asarray(labels, np.int32))
    return svm


def predict(svm, samples):
    return svm.predict(np.asarray(samples, np.float32))[1].reshape(-1).astype(int)


def labelled_set(folder):
    """(features, accepted digits) of each image of a labels.csv folder of single digits."""
    out = []
    with open(os.path.join(folder, "labels.csv"), newline="") as file:
        for row in csv.DictReader(file):
            if len(row["text"]) != 1:
                raise SystemExit(f"{folder}: {row['file']} holds {row['text']!r}; give sets of single digits")
            accepted = row.get("accept") or row["text"]
            image = cv2.imread(os.path.join(folder, row["file"]), cv2.IMREAD_COLOR)
            if image is None:
                raise SystemExit(f"{folder}: cannot read {row['file']}")
            out.append((features(image), {int(digit) for digit in accepted}))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", help="folders of single digits with labels.csv")
    parser.add_argument("--meterdigits", default=os.path.join(ROOT, "../shared/data/meterdigits"))
    arguments = parser.parse_args()
    settled = [(features(image), int(value), part) for value, image, part in compose.load(arguments.meterdigits)
               if value == int(value)]
    train_part = [(x, y) for x, y, part in settled if part == "train"]
    dev_part = [(x, y) for x, y, part in settled if part == "dev"]
    print(f"meterdigits settled photos: {len(train_part)} of the training meters, {len(dev_part)} of the "
          f"development meters", flush=True)
    best = None
    for c in GRID_C:
        for gamma in GRID_GAMMA:
            svm = train([x for x, _ in train_part], [y for _, y in train_part], c, gamma)
            right = float(np.mean(predict(svm, [x for x, _ in dev_part]) == np.array([y for _, y in dev_part])))
            print(f"  C {c:g}, gamma {gamma:g}: development meters {right:.2%}", flush=True)
            if best is None or right > best[0]:
                best = (right, c, gamma)
    _, c, gamma = best
    svm = train([x for x, _, _ in settled], [y for _, y, _ in settled], c, gamma)
    print(f"anchor: C {c:g}, gamma {gamma:g}, trained on all {len(settled)} settled photos")
    total = right_total = 0
    for folder in arguments.sets:
        items = labelled_set(folder)
        answers = predict(svm, [x for x, _ in items])
        right = sum(int(answer) in accepted for answer, (_, accepted) in zip(answers, items))
        total += len(items)
        right_total += right
        print(f"{os.path.basename(os.path.normpath(folder)):16} {len(items):6} {right / len(items):7.1%}")
    print(f"{'all':16} {total:6} {right_total / total:7.1%}")


if __name__ == "__main__":
    main()
