#!/usr/bin/env python3
"""Trains the row finder: a small fully convolutional network that marks where rows of digits lie
in a whole photo, for reading a device without a window (issue: find the digits in a whole photo).

    /tmp/venv/bin/python Tools/train-row-finder.py [--scenes 6000] [--epochs 6] [--seed 1] [--long-side 320]

(The venv and fonts as for Tools/train-digit-reader.py.) Trains only on scenes drawn by
Tools/rowfinder/scenes.py in the sequence reader's training style; Tools/make-device-photos.py's
photos (DSEG faces) are never trained on. The photo goes in at 320 pixels on its longer side (BGR,
0-1), and the network answers, at a quarter of that, the chance that each cell lies in the middle
half of a row of digits (the row's core: its middle half in height, less a tenth of its height at
either end, so that rows one above the other stay apart). `--measure DIR ...` reads device-photo
sets (labels.csv of Tools/make-device-photos.py) with the trained network and prints the share
whose true window a found row covers (IoU >= 0.5), the way the host cuts rows from the map
(`pm_rows_find` in digit_reader.cpp). Seeded: the same seed, the same scenes and order. Writes
Sources/Plugins/DigitReader/row-finder.onnx.
"""
import argparse
import csv
import os
import random
import sys
import time

import cv2
import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from digitreader import render  # noqa: E402
from rowfinder import maps, scenes  # noqa: E402
from rowfinder.maps import CORE, INSET  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LONG_SIDE = 320
STRIDE = 4
POSITIVE_WEIGHT = 4.0 # a core cell weighs this many others in the loss: cores are few
THRESHOLD = POSITIVE_WEIGHT / (POSITIVE_WEIGHT + 1)  # the score of an even chance: 0.8
# How much thicker and longer, in cells, the region of cells over the threshold comes out than the
# core it marks (a cell partly in the core is marked): `excesses` measures them on the
# development scenes after training, and RowFinder's C++ (digit_reader.cpp) takes them off.
THICKNESS_EXCESS = 0.91
LENGTH_EXCESS = 0.37


class RowFinder(nn.Module):
    """Two stride-2 convolutions, then dilated ones for context (a row is judged beside its
    neighbours: a unit, a label, the display's frame), one score per cell at stride 4."""

    def __init__(self, width=32):
        super().__init__()

        def block(inputs, outputs, stride=1, dilation=1):
            return [nn.Conv2d(inputs, outputs, 3, stride, padding=dilation, dilation=dilation, bias=False),
                    nn.BatchNorm2d(outputs), nn.ReLU(inplace=True)]

        self.layers = nn.Sequential(
            *block(3, 16, stride=2), *block(16, width, stride=2), *block(width, width),
            *block(width, width, dilation=2), *block(width, width, dilation=4), *block(width, width, dilation=8),
            *block(width, width), nn.Conv2d(width, 1, 1))

    def forward(self, image):
        return self.layers(image)


def input_size(width, height):
    """The network's input size for a photo: LONG_SIDE on the longer side, both a multiple of 16."""
    return maps.input_size(width, height, LONG_SIDE)


def prepare(photo):
    """BGR photo -> (1 x 3 x H x W float tensor input, scale x, scale y)."""
    return maps.prepare(photo, LONG_SIDE)


def core_mask(quads, width, height, sx, sy):
    """The target at stride 4: each row's core filled."""
    return maps.core_mask(quads, width, height, sx, sy, STRIDE)


def make_scenes(seed, count, faces):
    """`count` scenes as (input, target, the rows' corners, scale x, scale y)."""
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(count):
        photo, quads = scenes.scene(rng, faces)
        image, sx, sy = prepare(photo)
        items.append((image, core_mask(quads, image.shape[2], image.shape[1], sx, sy), quads, sx, sy))
    return items


def core_map(model, image):
    """The network's core scores (sigmoid) for one prepared input."""
    with torch.no_grad():
        return torch.sigmoid(model(torch.from_numpy(image)[None]))[0, 0].numpy()


def regions(scores, threshold=THRESHOLD):
    """Each connected region of two cells or more over `threshold` (an even chance: the loss
    weighs a core cell POSITIVE_WEIGHT times, which turns a chance p into 4p / (3p + 1)): its
    turned rectangle as (centre x, centre y, length, thickness, angle) in cells, the side nearer
    level along the row; and its cells' summed score."""
    count, labels = cv2.connectedComponents((scores > threshold).astype(np.uint8), connectivity=8)
    found = []
    for label in range(1, count):
        ys, xs = np.nonzero(labels == label)
        if len(xs) < 2:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32) + 0.5)
        if abs(((angle + 45) % 180) - 45) > 45:
            w, h, angle = h, w, angle + 90
        found.append(((cx, cy, w, h, angle), float(scores[labels == label].sum())))
    return found


def rows_from_map(scores, sx, sy):
    """Rows cut from a map of core scores: each region's turned rectangle grown from core to row;
    axis-aligned boxes (x, y, w, h) in photo pixels, the surest and largest first."""
    boxes = []
    for (cx, cy, w, h, angle), total in regions(scores):
        height = max(h - THICKNESS_EXCESS, 0.5) / (CORE[1] - CORE[0])
        width = max(w - LENGTH_EXCESS, 0.5) + 2 * INSET * height
        corners = cv2.boxPoints(((cx, cy), (width, height), angle)) * STRIDE
        corners[:, 0] /= sx
        corners[:, 1] /= sy
        low, high = corners.min(0), corners.max(0)
        boxes.append((total, (low[0], low[1], high[0] - low[0], high[1] - low[1])))
    return [box for _, box in sorted(boxes, reverse=True)]


def excesses(model, development):
    """The median excess of the regions' thickness and length, in cells, over the cores of the
    development rows they lie on (one region a row)."""
    model.eval()
    thickness, length = [], []
    for image, _, quads, sx, sy in development:
        found = [rectangle for rectangle, _ in regions(core_map(model, image))]
        for quad in quads:
            corners = quad * np.float32([sx, sy]) / STRIDE
            height = (np.linalg.norm(corners[3] - corners[0]) + np.linalg.norm(corners[2] - corners[1])) / 2
            width = (np.linalg.norm(corners[1] - corners[0]) + np.linalg.norm(corners[2] - corners[3])) / 2
            centre = corners.mean(0)
            near = [r for r in found if abs(r[0] - centre[0]) < width / 2 and abs(r[1] - centre[1]) < height / 2]
            if len(near) == 1:
                thickness.append(near[0][3] - (CORE[1] - CORE[0]) * height)
                length.append(near[0][2] - (width - 2 * INSET * height))
    model.train()
    return float(np.median(thickness)), float(np.median(length)), len(thickness)


def overlap(a, b):
    width = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    height = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    shared = width * height
    return shared / (a[2] * a[3] + b[2] * b[3] - shared)


def measure(model, folder, limit=3):
    model.eval()
    found = total = 0
    with open(os.path.join(folder, "labels.csv")) as file:
        for row in csv.DictReader(file):
            photo = cv2.imread(os.path.join(folder, row["file"]))
            image, sx, sy = prepare(photo)
            truth = tuple(float(v) for v in row["box"].split())
            rows = rows_from_map(core_map(model, image), sx, sy)[:limit]
            found += any(overlap(box, truth) >= 0.5 for box in rows)
            total += 1
    model.train()
    return found / max(total, 1)


def batches(items, size, rng):
    """Batches of one input size (landscape and portrait photos apart), shuffled."""
    groups = {}
    for index, (image, *_) in enumerate(items):
        groups.setdefault(image.shape, []).append(index)
    chunks = []
    for indices in groups.values():
        rng.shuffle(indices)
        chunks += [indices[start:start + size] for start in range(0, len(indices), size)]
    rng.shuffle(chunks)
    return chunks


def export(model, path):
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 3, 192, 256), path, opset_version=11, input_names=["photo"],
                      output_names=["cores"], dynamo=False,
                      dynamic_axes={"photo": {2: "height", 3: "width"}, "cores": {2: "h", 3: "w"}})


def main():
    global LONG_SIDE  # prepare() and input_size() take the photo at the size asked for
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=6000)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--long-side", type=int, default=LONG_SIDE,
                        help="the photo's longer side as the network takes it (RowFinder.longSide must match)")
    parser.add_argument("--output", default=os.path.join(ROOT, "Sources/Plugins/DigitReader"))
    parser.add_argument("--measure", nargs="*", default=[], metavar="DIR",
                        help="device-photo sets to measure the trained network on (never trained on)")
    arguments = parser.parse_args()
    LONG_SIDE = arguments.long_side
    torch.set_num_threads(arguments.threads)
    torch.manual_seed(arguments.seed)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(arguments.seed)
    faces = render.available_faces()
    started = time.time()
    items = make_scenes(arguments.seed, arguments.scenes, faces)
    development = make_scenes(arguments.seed + 7919, 300, faces)
    print(f"{len(items)} training scenes, {len(development)} development ({time.time() - started:.0f} s)", flush=True)
    model = RowFinder()
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = sum(len(batch) > 0 for batch in batches(items, 16, random.Random(0)))
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps * arguments.epochs + 1,
                                                   pct_start=0.15)
    positive = torch.tensor(POSITIVE_WEIGHT)

    def loss_of(group):
        images = torch.from_numpy(np.stack([group_item[0] for group_item in group]))
        targets = torch.from_numpy(np.stack([group_item[1] for group_item in group]))[:, None]
        scores = model(images)
        return nn.functional.binary_cross_entropy_with_logits(scores, targets, pos_weight=positive)

    for epoch in range(arguments.epochs):
        started = time.time()
        total = 0.0
        for batch in batches(items, 16, rng):
            loss = loss_of([items[index] for index in batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            held = sum(loss_of([development[index] for index in batch]).item() * len(batch)
                       for batch in batches(development, 16, random.Random(0))) / len(development)
        model.train()
        print(f"epoch {epoch}: loss {total / steps:.4f}, development {held:.4f} ({time.time() - started:.0f} s)",
              flush=True)
    os.makedirs(arguments.output, exist_ok=True)
    path = os.path.join(arguments.output, "row-finder.onnx")
    export(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")
    thickness, length, rows = excesses(model, development)
    print(f"excess over the core on {rows} development rows: thickness {thickness:.2f}, length {length:.2f} cells "
          f"(THICKNESS_EXCESS, LENGTH_EXCESS: {THICKNESS_EXCESS}, {LENGTH_EXCESS})")
    for folder in arguments.measure:
        print(f"{folder}: window found {measure(model, folder):.3f}", flush=True)


if __name__ == "__main__":
    main()
